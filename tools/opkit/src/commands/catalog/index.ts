// `opkit catalog`: one module per verb, each registering its command on the group made here.
import type { Command } from 'commander';
import { examples } from '../options.js';
import { registerCatalogBuild } from './build.js';
import { registerCatalogCheck } from './check.js';
import { registerCatalogDiff } from './diff.js';
import { registerCatalogImage } from './image.js';
import { registerCatalogMigrate } from './migrate.js';
import { registerCatalogPublish } from './publish.js';
import { registerCatalogRender } from './render.js';
import { registerCatalogServe } from './serve.js';
import { registerCatalogUpgradePaths } from './upgrade-paths.js';
import { registerCatalogValidate } from './validate.js';

export function registerCatalogCommands(program: Command): void {
  const catalog = program
    .command('catalog')
    .description(
      'Build, validate, compare, check and image file-based catalogs, and trace their upgrade paths.',
    )
    .addHelpText(
      'after',
      examples([
        'opkit catalog build --template catalog/templates/memcached-operator.yaml --out catalog/configs',
        'opkit catalog validate catalog/configs',
        'opkit catalog render catalog/configs -o yaml',
        'opkit catalog diff git:HEAD:catalog/configs catalog/configs',
        'opkit catalog check catalog/configs --previous dist/images/opkit-catalog:latest',
      ]),
    );
  registerCatalogBuild(catalog);
  registerCatalogValidate(catalog);
  registerCatalogCheck(catalog);
  registerCatalogRender(catalog);
  registerCatalogDiff(catalog);
  registerCatalogMigrate(catalog);
  registerCatalogServe(catalog);
  registerCatalogPublish(catalog);
  registerCatalogImage(catalog);
  registerCatalogUpgradePaths(catalog);
}
