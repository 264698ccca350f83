// `opkit bundle`: one module per verb, each registering its command on the group made here.
import type { Command } from 'commander';
import { examples } from '../options.js';
import { registerBundleBuildAll } from './build-all.js';
import { registerBundleGenerate } from './generate.js';
import { registerBundleImage } from './image.js';
import { registerBundlePush } from './push.js';
import { registerBundleValidate } from './validate.js';

export function registerBundleCommands(program: Command): void {
  const bundle = program
    .command('bundle')
    .description('Generate, validate and image registry+v1 bundles.')
    .addHelpText(
      'after',
      examples([
        'opkit bundle generate --operator operators/memcached --package memcached-operator --version 0.3.0 --out bundles/memcached-operator/0.3.0',
        'opkit bundle validate bundles/memcached-operator/0.3.0 -o json',
      ]),
    );
  registerBundleBuildAll(bundle);
  registerBundlePush(bundle);
  registerBundleGenerate(bundle, 'bundle generate');
  registerBundleValidate(bundle);
  registerBundleImage(bundle);
}
