import { type Command, Option } from 'commander';
import { CliError } from '../cli-error.js';
import { OLM_VERSION } from '../targets.js';
import { examples, OUTPUT_FORMAT_FLAGS, outputFormatOption, RESULT_FORMATS } from './options.js';

interface ClusterOptions {
  readonly version: string;
  readonly image?: string;
  readonly kubeconfig?: string;
}

/** The kubeconfig's cluster, the install's manifests, and the CLI-side modules they need. */
async function connect(
  opts: ClusterOptions & { readonly packageServer?: boolean; readonly opmImage?: string },
) {
  const [{ connectKube }, install] = await Promise.all([
    import('../kube-connection.js'),
    import('../olm-install/index.js'),
  ]);
  if (!/^\d+\.\d+\.\d+$/.test(opts.version)) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--version ${JSON.stringify(opts.version)}: give a release such as ${OLM_VERSION}`,
    );
  }
  const kube = connectKube(opts.kubeconfig);
  const manifests = install.olmInstallManifests({
    version: opts.version,
    ...(opts.image ? { image: opts.image } : {}),
    ...(opts.opmImage ? { opmImage: opts.opmImage } : {}),
    ...(opts.packageServer === false ? { packageServer: false } : {}),
  });
  return { kube, manifests, install };
}

function statusTable(
  rows: readonly { name: string; namespace: string; kind: string; status: string }[],
): string {
  const header = { name: 'NAME', namespace: 'NAMESPACE', kind: 'KIND', status: 'STATUS' };
  const all = [header, ...rows];
  const width = (key: 'name' | 'namespace' | 'kind') => Math.max(...all.map((r) => r[key].length)) + 4;
  const [n, ns, k] = [width('name'), width('namespace'), width('kind')];
  return all
    .map((r) => `${r.name.padEnd(n)}${r.namespace.padEnd(ns)}${r.kind.padEnd(k)}${r.status}\n`)
    .join('');
}

async function parseTimeout(value: string): Promise<number> {
  const { parseDuration } = await import('../publish.js');
  return parseDuration(value);
}

const versionOption = () => new Option('--version <version>', "OLM's release").default(OLM_VERSION);
const imageOption = () =>
  new Option('--image <ref>', "OLM's image (default: quay.io/operator-framework/olm:v<version>)");
const kubeconfigOption = () =>
  new Option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)');

/** `olm install | status | uninstall`, as operator-sdk's commands of the same names. */
export function registerOlmCommands(program: Command): void {
  const olm = program
    .command('olm')
    .description('Install, check and remove OLM (Operator Lifecycle Manager) on a cluster.')
    .addHelpText('after', examples(['opkit olm install', 'opkit olm status -o json', 'opkit olm uninstall']));
  olm
    .command('install')
    .description(
      'Install OLM: its CRDs, namespaces, RBAC, operators and packageserver; wait until they are ready.',
    )
    .addOption(versionOption())
    .addOption(imageOption())
    .option('--opm-image <ref>', "opm's image for the catalog operator's pods (default: OLM's own choice)")
    .option('--no-packageserver', 'leave out the packageserver (the PackageManifest API)')
    .option('--timeout <duration>', 'how long to wait for OLM to be ready (e.g. 90s, 2m)', '2m')
    .addOption(kubeconfigOption())
    .addHelpText(
      'after',
      `
Lays out OLM's release manifests (its CRDs first; the olm and operators namespaces; the olm-operator and
catalog-operator Deployments; the global-operators OperatorGroup; the packageserver CSV) without downloading
them, so it works offline; the default operatorhub.io catalog is not installed. Refuses when any object of
the install already exists. Prints the status of every object when done.

Examples:
  $ opkit olm install
  $ opkit olm install --timeout 5m --image registry.example.com/olm:v0.46.0`,
    )
    .action(async (opts: ClusterOptions & { opmImage?: string; packageserver: boolean; timeout: string }) => {
      const timeoutMs = await parseTimeout(opts.timeout);
      const { kube, manifests, install } = await connect({ ...opts, packageServer: opts.packageserver });
      try {
        const log = (line: string) => process.stderr.write(`${line}\n`);
        log(`installing OLM v${opts.version} on ${kube.server}`);
        const status = await install.installOlm(kube.client, manifests, { timeoutMs, log });
        process.stdout.write(statusTable(status));
        log('OLM is installed');
      } catch (error) {
        throw (await import('./olm-words.js')).inOlmWords(error);
      } finally {
        await kube.close();
      }
    });
  olm
    .command('status')
    .description("Print the state of each object of OLM's install; exit 1 unless all are there and healthy.")
    .addOption(versionOption())
    .addOption(outputFormatOption(OUTPUT_FORMAT_FLAGS, RESULT_FORMATS, 'output format'))
    .addOption(kubeconfigOption())
    .addHelpText(
      'after',
      `
Deployments are healthy when available, the packageserver CSV when Succeeded, CRDs when established.

Examples:
  $ opkit olm status
  $ opkit olm status -o json`,
    )
    .action(async (opts: ClusterOptions & { output: 'text' | 'json' | 'yaml' }) => {
      const { kube, manifests, install } = await connect(opts);
      try {
        const status = await install.olmStatus(kube.client, manifests);
        const installed = status.some((s) => s.status !== 'Not found');
        const healthy = status.every((s) => s.healthy);
        const rows = status.map(({ name, namespace, kind, status }) => ({ name, namespace, kind, status }));
        const { writeResult } = await import('../output.js');
        await writeResult(
          opts.output,
          { installed, healthy, resources: rows },
          installed ? statusTable(rows) : '',
        );
        if (!installed) throw new CliError('OPKIT_OLM_NOT_INSTALLED', 'OLM is not installed');
        if (!healthy) {
          const bad = status.filter((s) => !s.healthy).map((s) => `${s.kind} ${s.name}: ${s.status}`);
          throw new CliError('OPKIT_OLM_UNHEALTHY', `OLM is not healthy: ${bad.join('; ')}`);
        }
      } catch (error) {
        throw (await import('./olm-words.js')).inOlmWords(error);
      } finally {
        await kube.close();
      }
    });
  olm
    .command('uninstall')
    .description('Remove OLM, deleting only what `opkit olm install` created; wait until it is gone.')
    .addOption(versionOption())
    .option(
      '--delete-crds',
      "also delete what OLM's CRDs hold that olm install did not create (Subscriptions, CSVs and their operators, …)",
    )
    .option('--timeout <duration>', 'how long to wait for everything to be gone (e.g. 90s, 2m)', '2m')
    .addOption(kubeconfigOption())
    .addHelpText(
      'after',
      `
Deletes only what it can prove \`opkit olm install\` created: the objects of the install carrying its label
opkit.dev/olm-install and its annotation opkit.dev/olm-install-run naming the object. An OLM installed any
other way is refused; an object of the install's names that lacks the mark is left, and printed.

OLM's CRDs hold everything OLM manages; deleting them deletes it all. While they hold objects olm install
did not create (Subscriptions, InstallPlans, ClusterServiceVersions and the operators OLM deployed,
CatalogSources, OperatorGroups; the OperatorCondition OLM makes for a CSV counts with the CSV), it refuses,
naming how many of each, and deletes nothing. With --delete-crds it deletes those first, counted per kind,
while OLM still runs. Then the packageserver's APIService and OLM's own Deployments, RBAC, namespaces and
CRDs; a namespace of the install holding Deployments, Services, ConfigMaps, Secrets, Pods, … that users put
there is left, and printed with their counts. Fails when OLM is not installed.

Examples:
  $ opkit olm uninstall
  $ opkit olm uninstall --delete-crds   # the operators OLM installed go too`,
    )
    .action(async (opts: ClusterOptions & { timeout: string; deleteCrds?: boolean }) => {
      const timeoutMs = await parseTimeout(opts.timeout);
      const { kube, manifests, install } = await connect(opts);
      try {
        const log = (line: string) => process.stderr.write(`${line}\n`);
        log(`uninstalling OLM from ${kube.server}`);
        await install.uninstallOlm(kube.client, manifests, {
          timeoutMs,
          log,
          ...(opts.deleteCrds === true ? { deleteCrds: true } : {}),
        });
        log('OLM is uninstalled');
      } catch (error) {
        throw (await import('./olm-words.js')).inOlmWords(error);
      } finally {
        await kube.close();
      }
    });
}
