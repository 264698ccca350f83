// `nx run redis:deploy --image=<ref>` / `nx run redis:undeploy`: renders config/default with kustomize
// (through kubectl) and applies it to, or deletes it from, the current kubeconfig's cluster.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Command } from 'commander';

const root = join(import.meta.dirname, '..', '..');

function kubectl(args: string[], input?: string): string {
  const result = spawnSync('kubectl', args, { input, encoding: 'utf8' });
  if (result.error)
    throw new Error(`kubectl could not run (${result.error.message}): install kubectl and put it on PATH`);
  if (result.status !== 0) throw new Error(`kubectl ${args[0]} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

function render(image: string | undefined): string {
  const text = kubectl(['kustomize', join(root, 'config', 'default')]);
  return image ? text.replaceAll('image: controller:latest', `image: ${image}`) : text;
}

const program = new Command('redis-deploy').showHelpAfterError();
program
  .command('deploy')
  .description('Install the CRD, RBAC and the operator Deployment into the current cluster.')
  .requiredOption('--image <ref>', 'operator image, e.g. registry.example.com/redis-operator:0.1.0')
  .option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
  .action((opts: { image: string; kubeconfig?: string }) => {
    const k = opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : [];
    process.stdout.write(
      kubectl(
        ['apply', ...k, '--server-side', '--field-manager=redis-deploy', '-f', '-'],
        render(opts.image),
      ),
    );
  });
program
  .command('undeploy')
  .description('Remove what deploy installed (the CRD too, and with it every RedisCluster).')
  .option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
  .action((opts: { kubeconfig?: string }) => {
    const k = opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : [];
    process.stdout.write(
      kubectl(['delete', ...k, '--ignore-not-found', '--wait=false', '-f', '-'], render(undefined)),
    );
  });

try {
  program.parse(process.argv);
} catch (error) {
  process.stderr.write(`redis-deploy: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
