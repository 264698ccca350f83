import { spawnSync } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';

function kubectl(args: string[], input?: string): string {
  const result = spawnSync('kubectl', args, { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error)
    throw new CliError(
      'OPKIT_KUBECTL_MISSING',
      `kubectl could not run (${result.error.message}): install kubectl`,
    );
  if (result.status !== 0)
    throw new CliError('OPKIT_KUBECTL_FAILED', `kubectl ${args[0]} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

/** An operator's `config/default`, rendered by kustomize, with the manager image set. */
function render(operatorDir: string, image: string | undefined): string {
  const text = kubectl(['kustomize', join(operatorDir, 'config', 'default')]);
  return image ? text.replaceAll('image: controller:latest', `image: ${image}`) : text;
}

/** `deploy` / `undeploy` for an operator project in the kubebuilder layout (what `make deploy` does). */
export function registerDeployCommands(program: Command): void {
  program
    .command('deploy')
    .description(
      'Install an operator (CRDs, RBAC, manager Deployment from config/default) into the current cluster.',
    )
    .requiredOption('--image <ref>', 'operator image, e.g. registry.example.com/memcached-operator:0.2.0')
    .option('--operator <dir>', 'operator project directory', '.')
    .option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
    .action((opts: { image: string; operator: string; kubeconfig?: string }) => {
      const dir = resolve(opts.operator);
      const k = opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : [];
      const manager = `${basename(dir)}-deploy`;
      process.stdout.write(
        kubectl(
          ['apply', ...k, '--server-side', `--field-manager=${manager}`, '-f', '-'],
          render(dir, opts.image),
        ),
      );
    });
  program
    .command('undeploy')
    .description('Remove what deploy installed (the CRDs too, and with them every custom resource).')
    .option('--operator <dir>', 'operator project directory', '.')
    .option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
    .action((opts: { operator: string; kubeconfig?: string }) => {
      const k = opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : [];
      process.stdout.write(
        kubectl(
          ['delete', ...k, '--ignore-not-found', '--wait=false', '-f', '-'],
          render(resolve(opts.operator), undefined),
        ),
      );
    });
}
