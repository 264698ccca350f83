import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { examples } from '../options.js';

/** `opkit undeploy`: what `opkit deploy` applied, and only that, removed. */
export function registerUndeploy(program: Command): void {
  program
    .command('undeploy')
    .description('Remove what deploy applied, and only that; CRDs with objects only with --delete-crds.')
    .option('--operator <dir>', 'operator project directory', '.')
    .option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
    .option(
      '--delete-crds',
      "delete the operator's CRDs even while objects of them exist, and those objects first",
    )
    .option('--timeout <duration>', 'how long the operator may take to finalize its custom resources', '120s')
    .addHelpText(
      'after',
      examples(
        [
          'opkit undeploy --operator operators/memcached',
          'opkit undeploy --operator operators/memcached --delete-crds',
          'opkit undeploy --operator . --kubeconfig ./kubeconfig --timeout 5m',
        ],
        `Deletes only what it can prove \`opkit deploy\` of this operator applied: of the objects config/default
renders, those the cluster holds with deploy's label opkit.dev/deploy and its annotation opkit.dev/deploy-run
naming this operator and the object. Anything else found under those names is left, and printed with why:
so is an object deploy found already there (a namespace made beforehand, say), which it applied unmarked.

A CRD that still has objects is kept, with them, unless --delete-crds is given: then every object of it is
deleted first, while the operator still runs, and undeploy waits until they are gone (their finalizers are
the operator's to remove; deleted together with the operator, they would keep their finalizers and hold
their CRD in Terminating), printing how many there were. Then the rest is deleted.`,
      ),
    )
    .action(
      async (opts: { operator: string; kubeconfig?: string; timeout: string; deleteCrds?: boolean }) => {
        const [
          { deleteCustomResources, liveObjects, countCustomResources, objectList, renderedObjects },
          plans,
          { kubectl },
          { renderOverlay: render },
        ] = await Promise.all([
          import('../../undeploy.js'),
          import('../../deployed-objects.js'),
          import('../../kubectl.js'),
          import('../../overlay.js'),
        ]);
        const dir = resolve(opts.operator);
        const k = opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : [];
        const manager = `${basename(dir)}-deploy`;
        const rendered = renderedObjects(render(dir, undefined), join(dir, 'config', 'default'));
        const live = liveObjects(k, rendered);
        const counts = new Map(
          live
            .filter((o) => o.kind === 'CustomResourceDefinition' && plans.deployedBy(o, manager))
            .map((o) => {
              const name = o.metadata?.name ?? '';
              return [name, countCustomResources(k, name)] as const;
            }),
        );
        const plan = plans.planUndeploy(live, counts, manager, opts.deleteCrds === true);
        for (const { object, reason } of plan.left) process.stdout.write(`leaving ${object}: ${reason}\n`);
        for (const { resource, objects } of plan.emptyFirst) {
          process.stdout.write(
            `deleting ${objects} object${objects === 1 ? '' : 's'} of ${resource} with its CRD (--delete-crds)\n`,
          );
          deleteCustomResources(k, resource, opts.timeout);
        }
        if (plan.delete.length === 0) {
          process.stdout.write(`nothing to undeploy: no object applied by opkit deploy of ${manager}\n`);
          return;
        }
        const headers = plan.delete.map((o) => ({
          apiVersion: o.apiVersion,
          kind: o.kind,
          metadata: { name: o.metadata?.name, namespace: o.metadata?.namespace },
        }));
        process.stdout.write(
          kubectl(['delete', ...k, '--ignore-not-found', '--wait=false', '-f', '-'], objectList(headers)),
        );
      },
    );
}
