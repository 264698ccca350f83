// `opkit generate`: the parts of an operator project OLM reads, one module per verb.
import type { Command } from 'commander';
import { registerBundleGenerate } from '../bundle/generate.js';
import { examples } from '../options.js';
import { registerGenerateKustomizeManifests } from './kustomize-manifests.js';

export function registerGenerateCommands(program: Command): void {
  const generate = program
    .command('generate')
    .description('Generate the parts of an operator project OLM reads, as operator-sdk generate does.')
    .addHelpText(
      'after',
      examples([
        'opkit generate kustomize manifests --operator operators/memcached',
        'opkit generate bundle --operator operators/memcached',
      ]),
    );
  const kustomize = generate
    .command('kustomize')
    .description('Generate kustomize inputs of the bundle.')
    .addHelpText('after', examples(['opkit generate kustomize manifests --operator operators/redis']));
  registerGenerateKustomizeManifests(kustomize);
  registerBundleGenerate(generate, 'generate bundle');
}
