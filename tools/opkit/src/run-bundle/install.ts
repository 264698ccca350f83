// `opkit run bundle` and `opkit run bundle-upgrade`: a bundle image installed, or upgraded, through OLM from
// a one-package catalog image pushed beside it, as operator-sdk's commands of the same names do.
import { randomUUID } from 'node:crypto';
import { parseReference, type RegistryClient } from '@opkit/oci';
import {
  operatorGroupTarget,
  parseInstallMode,
  singleBundleCatalog,
  targetsMatch,
  withUpgradeBundle,
} from '@opkit/olm';
import { CliError } from '../cli-error.js';
import { publishCatalog, type SecurityContextConfig } from '../publish.js';
import { cliRegistryClient } from '../registry-client.js';
import { approveAndWait } from './approve.js';
import {
  type Cluster,
  connect,
  create,
  Deadline,
  list,
  mergePatch,
  readOptional,
  waitFor,
} from './cluster.js';
import { pullBundle, pullCatalog, pushCatalog } from './images.js';
import {
  adoptionConflict,
  type CatalogSourceObject,
  type ClusterServiceVersion,
  createdForPackage,
  defaultCatalogRepository,
  OLM_V1,
  OLM_V1ALPHA1,
  type OperatorGroup,
  objectNames,
  operatorGroupManifest,
  parseEnv,
  type RunMark,
  runMarkOf,
  runMetadata,
  type Subscription,
  subscriptionManifest,
} from './olm-objects.js';

/** The catalog's directory in its image, which OLM copies out and serves with its own opm. */
const CATALOG_DIR = '/configs';

/** Options both commands share. */
export interface RunOptions {
  readonly bundleImage: string;
  readonly namespace?: string;
  readonly kubeconfig?: string;
  readonly timeoutMs: number;
  readonly plainHttp: boolean;
  readonly skipTlsVerify: boolean;
  /** The registry pod's security context; `bundle-upgrade` keeps the CatalogSource's when unset. */
  readonly securityContextConfig?: SecurityContextConfig;
  readonly log: (line: string) => void;
}

export interface RunBundleOptions extends RunOptions {
  /** `AllNamespaces`, `OwnNamespace` or `SingleNamespace=<ns>`; default as operator-sdk chooses. */
  readonly installMode?: string;
  /** Where the catalog image goes; default `<package>-catalog` beside the bundle's repository. */
  readonly catalogRepository?: string;
  /** `NAME=VALUE` for the operator's containers (the Subscription's `spec.config.env`). */
  readonly env: readonly string[];
}

function registryClient(options: RunOptions): RegistryClient {
  return cliRegistryClient({ plainHttp: options.plainHttp, insecureSkipTlsVerify: options.skipTlsVerify });
}

/** `<repository>:<csv name>`, refusing a repository that is not one. */
function catalogReference(repository: string, csvName: string): string {
  const reference = `${repository}:${csvName}`;
  try {
    parseReference(reference);
  } catch (err) {
    throw new CliError(
      'OPKIT_ARGUMENT_INVALID',
      `--catalog-repository ${repository}: ${(err as Error).message}`,
    );
  }
  return reference;
}

/**
 * Makes the CatalogSource serve the catalog image and waits until OLM reports it READY. It is created, or
 * applied over the run's own as read just before: one someone made during the catalog push is refused.
 */
async function publish(
  cluster: Cluster,
  mark: RunMark,
  image: string,
  deadline: Deadline,
  options: RunOptions,
) {
  await publishCatalog({
    name: objectNames(mark.package).catalogSource,
    namespace: cluster.namespace,
    image,
    extractContent: CATALOG_DIR,
    ...(options.securityContextConfig === undefined
      ? {}
      : { securityContextConfig: options.securityContextConfig }),
    ...runMetadata(mark),
    timeoutMs: deadline.remainingMs,
    api: cluster.api,
    // Read again right before it is written: the catalog push before may have taken minutes.
    notOurs: (existing) => adoptionConflict(existing, mark.package),
    log: options.log,
  });
}

/**
 * `opkit run bundle`: reads the bundle image, pushes a catalog of that one bundle, and installs it with a
 * CatalogSource, an OperatorGroup (unless the namespace has a fitting one), a Subscription and the approval of
 * its InstallPlan; returns when the CSV is Succeeded. Everything created carries the run's mark
 * ({@link runMetadata}); an existing CatalogSource, OperatorGroup or Subscription of its names that no run
 * for the package created is refused, never taken over.
 */
export async function runBundle(options: RunBundleOptions): Promise<void> {
  const request = options.installMode === undefined ? undefined : parseInstallMode(options.installMode);
  const env = parseEnv(options.env);
  const cluster = connect(options.kubeconfig, options.namespace);
  const { namespace } = cluster;
  const client = registryClient(options);
  // The package, once the first object for it is created.
  let created: string | undefined;
  try {
    const deadline = new Deadline(options.timeoutMs);
    const pulled = await pullBundle(client, options.bundleImage);
    const { packageName, csv } = pulled.bundle;
    const { csvName } = pulled;
    const channel = pulled.bundle.defaultChannel ?? pulled.bundle.channels[0];
    if (channel === undefined) {
      throw new CliError('OPKIT_BUNDLE_IMAGE_INVALID', `${options.bundleImage}: the bundle names no channel`);
    }
    options.log(`bundle ${csvName} of package ${packageName}, channel ${channel} (${pulled.image})`);
    if (
      (await readOptional(cluster, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace },
      })) === undefined
    ) {
      throw new CliError(
        'OPKIT_NAMESPACE_MISSING',
        `namespace ${namespace} does not exist: create it first (kubectl create namespace ${namespace})`,
      );
    }
    const names = objectNames(packageName);
    const existing = (await list<Subscription>(cluster, OLM_V1ALPHA1, 'Subscription', { namespace })).find(
      (s) => s.spec.name === packageName || s.metadata.name === names.subscription,
    );
    if (existing !== undefined) {
      const where = `Subscription ${namespace}/${existing.metadata.name}`;
      const ours = existing.spec.name === packageName && createdForPackage(existing, packageName);
      throw new CliError(
        ours ? 'OPKIT_ALREADY_INSTALLED' : 'OPKIT_OBJECT_NOT_OURS',
        existing.spec.name !== packageName
          ? `${where} (of package ${existing.spec.name}) already exists and was not created by 'opkit run bundle' for package ${packageName}: it is left as it is; choose another --namespace`
          : ours
            ? `package ${packageName} already has ${where}: upgrade with 'opkit run bundle-upgrade' or remove it with 'opkit cleanup ${packageName}'`
            : `package ${packageName} already has ${where}, not created by 'opkit run bundle': it is left as it is; remove it first or choose another --namespace`,
      );
    }
    const foreignSource = adoptionConflict(
      await readOptional<CatalogSourceObject>(cluster, {
        apiVersion: OLM_V1ALPHA1,
        kind: 'CatalogSource',
        metadata: { name: names.catalogSource, namespace },
      }),
      packageName,
    );
    if (foreignSource !== undefined) throw new CliError('OPKIT_OBJECT_NOT_OURS', foreignSource);
    const mark: RunMark = { package: packageName, namespace, run: randomUUID() };
    const target = operatorGroupTarget(csv.spec?.installModes, namespace, request);
    const groups = await list<OperatorGroup>(cluster, OLM_V1, 'OperatorGroup', { namespace });
    if (groups.length > 1) {
      throw new CliError(
        'OPKIT_OPERATOR_GROUP_CONFLICT',
        `namespace ${namespace} has ${groups.length} OperatorGroups (${groups.map((g) => g.metadata.name).join(', ')}): OLM installs nothing there until one is left`,
      );
    }
    const group = groups[0];
    if (group === undefined) {
      created = packageName;
      const group = await create(cluster, operatorGroupManifest(mark, target));
      options.log(`created OperatorGroup ${namespace}/${group.metadata.name} (${target.mode})`);
    } else if (!targetsMatch(group.spec?.targetNamespaces, target)) {
      throw new CliError(
        'OPKIT_OPERATOR_GROUP_CONFLICT',
        `OperatorGroup ${namespace}/${group.metadata.name} targets ${group.spec?.targetNamespaces?.join(', ') || 'all namespaces'}, not what install mode ${target.mode} needs (${target.targetNamespaces.join(', ') || 'all namespaces'}): choose another --namespace or --install-mode`,
      );
    } else {
      options.log(`using OperatorGroup ${namespace}/${group.metadata.name} (${target.mode})`);
    }

    const repository =
      options.catalogRepository ?? defaultCatalogRepository(options.bundleImage, packageName);
    const reference = catalogReference(repository, csvName);
    options.log(`pushing catalog ${reference}`);
    const catalogImage = await pushCatalog(client, singleBundleCatalog(pulled.blob, channel), reference);
    options.log(`pushed catalog ${catalogImage}`);
    created = packageName;
    await publish(cluster, mark, catalogImage, deadline, options);

    const subscription = await create(
      cluster,
      subscriptionManifest({ mark, channel, startingCSV: csvName, env }),
    );
    options.log(`created Subscription ${namespace}/${subscription.metadata.name}`);
    await approveAndWait(cluster, {
      subscription: subscription.metadata.name,
      csvName,
      bundleImage: pulled.image,
      deadline,
      log: options.log,
    });
    options.log(`${csvName} is installed in ${namespace}`);
  } catch (err) {
    // From the first object created on, a failure leaves them in place for inspection, as operator-sdk does.
    if (err instanceof CliError && created !== undefined) {
      throw new CliError(
        err.code,
        `${err.message} ('opkit cleanup ${created} -n ${namespace}' removes what was created)`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    client.close();
    await cluster.close();
  }
}

/**
 * `opkit run bundle-upgrade`: adds the new bundle to the catalog `run bundle` pushed (replacing the installed
 * CSV), pushes it, points the CatalogSource at it, approves the upgrade and waits until the new CSV is
 * Succeeded and the old one is gone.
 */
export async function upgradeBundle(options: RunOptions): Promise<void> {
  const cluster = connect(options.kubeconfig, options.namespace);
  const { namespace } = cluster;
  const client = registryClient(options);
  try {
    const deadline = new Deadline(options.timeoutMs);
    const pulled = await pullBundle(client, options.bundleImage);
    const { packageName } = pulled.bundle;
    const { csvName } = pulled;
    options.log(`bundle ${csvName} of package ${packageName} (${pulled.image})`);
    const names = objectNames(packageName);
    const header = (kind: string, name: string) => ({
      apiVersion: OLM_V1ALPHA1,
      kind,
      metadata: { name, namespace },
    });
    const ours = (o: CatalogSourceObject | Subscription | undefined) =>
      o !== undefined && createdForPackage(o, packageName);
    const subscription = await readOptional<Subscription>(
      cluster,
      header('Subscription', names.subscription),
    );
    const source = await readOptional<CatalogSourceObject>(
      cluster,
      header('CatalogSource', names.catalogSource),
    );
    const mark = subscription === undefined ? undefined : runMarkOf(subscription);
    if (
      subscription === undefined ||
      mark === undefined ||
      !ours(subscription) ||
      source === undefined ||
      !ours(source) ||
      !source.spec.image
    ) {
      throw new CliError(
        'OPKIT_NOT_INSTALLED',
        `package ${packageName} was not installed in ${namespace} by 'opkit run bundle' (no Subscription ${names.subscription} and CatalogSource ${names.catalogSource} of it): run 'opkit run bundle' first`,
      );
    }
    const installed = subscription.status?.installedCSV;
    if (installed === undefined) {
      throw new CliError(
        'OPKIT_NOT_INSTALLED',
        `Subscription ${namespace}/${names.subscription} has no installed CSV yet (state ${subscription.status?.state ?? 'none'})`,
      );
    }
    if (installed === csvName) {
      throw new CliError('OPKIT_ALREADY_INSTALLED', `${csvName} is already installed in ${namespace}`);
    }

    options.log(`pulling catalog ${source.spec.image}`);
    const catalog = withUpgradeBundle(await pullCatalog(client, source.spec.image), pulled.blob, {
      channel: subscription.spec.channel,
      replaces: installed,
    });
    const { registry, repository } = parseReference(source.spec.image);
    const reference = `${registry}/${repository}:${csvName}`;
    options.log(`pushing catalog ${reference} (${installed} → ${csvName})`);
    const catalogImage = await pushCatalog(client, catalog, reference);
    options.log(`pushed catalog ${catalogImage}`);
    // Server-side apply drops what this apply leaves out: the pod's security context stays as run bundle set it.
    const securityContextConfig =
      options.securityContextConfig ?? source.spec.grpcPodConfig?.securityContextConfig;
    await publish(cluster, mark, catalogImage, deadline, {
      ...options,
      ...(securityContextConfig === undefined ? {} : { securityContextConfig }),
    });
    // OLM re-resolves a namespace when something in it changes; a touched Subscription makes that certain.
    await mergePatch(cluster, header('Subscription', names.subscription), {
      metadata: { annotations: { 'opkit.dev/catalog-image': catalogImage } },
    });

    await approveAndWait(cluster, {
      subscription: names.subscription,
      csvName,
      bundleImage: pulled.image,
      deadline,
      log: options.log,
    });
    await waitFor(
      `the replaced ClusterServiceVersion ${namespace}/${installed} to be removed`,
      deadline,
      async (state) => {
        const old = await readOptional<ClusterServiceVersion>(
          cluster,
          header('ClusterServiceVersion', installed),
        );
        state(
          `ClusterServiceVersion ${namespace}/${installed}: ${old ? (old.status?.phase ?? 'present') : 'removed'}`,
        );
        return old === undefined ? true : undefined;
      },
      { log: options.log },
    );
    options.log(`${csvName} replaced ${installed} in ${namespace}`);
  } finally {
    client.close();
    await cluster.close();
  }
}
