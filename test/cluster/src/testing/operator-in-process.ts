import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { freePort } from '../control-plane/ports.js';
import { KubeApiError, KubeRest } from '../kube/rest.js';
import { eventually, testKubeConfig } from './index.js';

/** What the kit needs of an operator's manager: started with an abort signal, elected once it acts. */
export interface InProcessOperator {
  start(signal: AbortSignal): Promise<void>;
  readonly elected: Promise<unknown>;
}

/** An operator that serves webhooks: its server has an address once it listens. */
export interface InProcessWebhookOperator extends InProcessOperator {
  readonly webhookServer: { readonly address: unknown } | undefined;
}

/** The parts of a CustomResourceDefinition the kit reads. */
export interface TestCrd {
  readonly metadata: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly plural: string };
    readonly versions: readonly {
      readonly name: string;
      readonly served: boolean;
      readonly storage: boolean;
    }[];
  };
}

/** A webhook configuration that calls the operator in this process (by URL, with its CA bundle). */
export interface TestWebhookConfiguration {
  readonly kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  readonly metadata: { readonly name?: string };
}

/** A serving certificate and its key, PEM encoded. */
export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
}

/**
 * The webhook server of the operator in this process: where its manager listens (pass it as the manager's
 * `webhook` options) and how the API server reaches it (`clientConfig`, for the CRDs' conversion and the
 * webhook configurations), on a loopback port with a self-signed certificate, where in a cluster the
 * operator's Service and a certificate from `opkit deploy` or OLM stand.
 */
export interface InProcessWebhookServer {
  readonly host: string;
  readonly port: number;
  /** Holds `tls.crt` and `tls.key`. */
  readonly certPath: string;
  /** The webhook client configuration that calls `path` on this server: its URL and the CA bundle. */
  readonly clientConfig: (path: string) => { readonly url: string; readonly caBundle: string };
}

/** What `create` gets besides the namespace. */
export interface InProcessOperatorContext {
  /** Takes the operator's log lines: kept for the test (`logs`), echoed to stderr with `OPKIT_TEST_VERBOSE` set. */
  readonly logSink: (line: string) => void;
  /** `OPKIT_TEST_VERBOSE` is set: the operator may log at debug level to stderr. */
  readonly verbose: boolean;
}

export interface OperatorOptions<M extends InProcessOperator> {
  readonly crds: readonly TestCrd[];
  readonly namespace: () => string;
  readonly create: (namespace: string, context: InProcessOperatorContext) => M;
}

export interface WebhookOperatorOptions<M extends InProcessWebhookOperator> {
  /**
   * Serves the operator's webhooks in this process. `certificate` makes the server's certificate for the
   * hosts it is asked for: pass `selfSignedCertificate` of `@opkit/controller-runtime/serving`.
   */
  readonly webhookServer: {
    readonly certificate: (request: {
      readonly commonName: string;
      readonly hosts: readonly string[];
    }) => ServingCertificate;
  };
  /** The CRDs, those with a conversion webhook calling the server (`withConversionWebhook`). */
  readonly crds: readonly TestCrd[] | ((server: InProcessWebhookServer) => readonly TestCrd[]);
  /** The webhook configurations calling the server, e.g. those of `webhookConfigurations(kinds, clientConfig)`. */
  readonly webhookConfigurations?: (
    server: InProcessWebhookServer,
  ) => readonly (TestWebhookConfiguration | undefined)[];
  readonly namespace: () => string;
  readonly create: (
    namespace: string,
    context: InProcessOperatorContext & { readonly webhookServer: InProcessWebhookServer },
  ) => M;
}

export interface UsedOperator<M> {
  /** The current test's manager. */
  manager(): M;
  /** The lines the current test's manager wrote to `logSink`. */
  readonly logs: readonly string[];
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
/** The annotation prefix by which the test files using a CRD mark it, one annotation each. */
const USER_PREFIX = 'in-process.test.opkit.dev/';

interface LiveCrd {
  metadata: {
    resourceVersion: string;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
  };
  status?: { conditions?: { type: string; status: string }[] };
}

interface ObjectList {
  items: { metadata: { name: string; namespace?: string; finalizers?: string[] } }[];
}

const webhookConfigurationPath = (c: TestWebhookConfiguration) =>
  `/apis/admissionregistration.k8s.io/v1/${c.kind.toLowerCase()}s`;

const isStatus = (error: unknown, status: number) => error instanceof KubeApiError && error.status === status;

async function deleteIgnoringNotFound(rest: KubeRest, path: string): Promise<void> {
  await rest.request('DELETE', path).catch((error: unknown) => {
    if (!isStatus(error, 404)) throw error;
  });
}

async function getIfPresent<T>(rest: KubeRest, path: string): Promise<T | undefined> {
  try {
    return await rest.request<T>('GET', path);
  } catch (error) {
    if (isStatus(error, 404)) return undefined;
    throw error;
  }
}

async function waitUntilGone(rest: KubeRest, path: string, what: string): Promise<void> {
  await eventually(what, async () => (await getIfPresent(rest, path)) === undefined, { timeoutMs: 60_000 });
}

function crdName(crd: TestCrd): string {
  return crd.metadata.name ?? `${crd.spec.names.plural}.${crd.spec.group}`;
}

/** The version the kit reads and writes objects at: the stored one if served, which needs no conversion. */
function storageVersion(crd: TestCrd): string | undefined {
  const served = crd.spec.versions.filter((v) => v.served);
  return (served.find((v) => v.storage) ?? served[0])?.name;
}

const usersOf = (live: LiveCrd | undefined) =>
  Object.keys(live?.metadata.annotations ?? {}).filter((key) => key.startsWith(USER_PREFIX));

/**
 * Creates or replaces the CRD, keeping the marks of the files using it and adding `user`'s; a CRD being
 * deleted is waited out and created anew.
 */
async function putCrd(rest: KubeRest, crd: TestCrd, user?: string): Promise<void> {
  const path = `${CRDS}/${crdName(crd)}`;
  for (;;) {
    const live = await getIfPresent<LiveCrd>(rest, path);
    if (live?.metadata.deletionTimestamp) {
      await waitUntilGone(rest, path, `${crdName(crd)} deleted`);
      continue;
    }
    const marks = Object.fromEntries(
      usersOf(live).map((key) => [key, live?.metadata.annotations?.[key] ?? '']),
    );
    const annotations = {
      ...marks,
      ...crd.metadata.annotations,
      ...(user ? { [user]: `${hostname()} pid ${process.pid}` } : {}),
    };
    const metadata = { ...crd.metadata, annotations, resourceVersion: live?.metadata.resourceVersion };
    try {
      if (live) await rest.request('PUT', path, { body: { ...crd, metadata } });
      else await rest.request('POST', CRDS, { body: { ...crd, metadata } });
      return;
    } catch (error) {
      // Created, changed or deleted by another test file meanwhile: read it again.
      if (!isStatus(error, 409)) throw error;
    }
  }
}

async function waitUntilServed(rest: KubeRest, crd: TestCrd): Promise<void> {
  const path = `${CRDS}/${crdName(crd)}`;
  await eventually(`${crdName(crd)} established`, async () => {
    const live = await rest.request<LiveCrd>('GET', path);
    return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });
  // Established is the API server's word; a list answering is the kind actually served.
  const version = storageVersion(crd);
  await eventually(`${crdName(crd)} served`, async () => {
    await rest.request('GET', `/apis/${crd.spec.group}/${version}/${crd.spec.names.plural}`, {
      query: { limit: '1' },
    });
    return true;
  });
}

async function listObjects(rest: KubeRest, crd: TestCrd): Promise<ObjectList['items']> {
  const list = await rest
    .request<ObjectList>('GET', `/apis/${crd.spec.group}/${storageVersion(crd)}/${crd.spec.names.plural}`)
    .catch(() => ({ items: [] })); // not served: nothing can hold the CRD
  return list.items;
}

async function dropFinalizers(rest: KubeRest, crd: TestCrd): Promise<void> {
  for (const { metadata } of await listObjects(rest, crd)) {
    if (!metadata.finalizers?.length) continue;
    const ns = metadata.namespace ? `/namespaces/${metadata.namespace}` : '';
    await rest
      .request(
        'PATCH',
        `/apis/${crd.spec.group}/${storageVersion(crd)}${ns}/${crd.spec.names.plural}/${metadata.name}`,
        { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' },
      )
      .catch((error: unknown) => {
        if (!isStatus(error, 404)) throw error;
      });
  }
}

/**
 * Deletes the CRD and waits until it is gone, unless a test file has marked it: the delete is conditional on
 * the version read, so a mark set meanwhile keeps it too.
 */
async function deleteUnmarkedCrd(rest: KubeRest, crd: TestCrd): Promise<void> {
  const path = `${CRDS}/${crdName(crd)}`;
  for (;;) {
    const live = await getIfPresent<LiveCrd>(rest, path);
    if (!live) return;
    if (usersOf(live).length > 0) return;
    try {
      await rest.request('DELETE', path, {
        body: { preconditions: { resourceVersion: live.metadata.resourceVersion } },
      });
      break;
    } catch (error) {
      if (isStatus(error, 404)) return;
      if (!isStatus(error, 409)) throw error;
    }
  }
  await waitUntilGone(rest, path, `${crdName(crd)} deleted`);
}

/**
 * Whether something besides this test file (whose mark is off) uses the CRDs: another file's mark, or an object of their kinds
 * in a namespace that is neither this file's nor being deleted (a run that does not use this kit, or an
 * operator deployed to the cluster).
 */
async function usedByOthers(
  rest: KubeRest,
  crds: readonly TestCrd[],
  ownNamespaces: ReadonlySet<string>,
): Promise<boolean> {
  const namespaceActive = new Map<string, boolean>();
  for (const crd of crds) {
    const live = await getIfPresent<LiveCrd>(rest, `${CRDS}/${crdName(crd)}`);
    if (usersOf(live).length > 0) return true;
    for (const { metadata } of await listObjects(rest, crd)) {
      const ns = metadata.namespace;
      if (ns === undefined || ownNamespaces.has(ns)) continue;
      if (!namespaceActive.has(ns)) {
        const namespace = await getIfPresent<{ metadata: { deletionTimestamp?: string } }>(
          rest,
          `/api/v1/namespaces/${ns}`,
        );
        namespaceActive.set(ns, namespace !== undefined && !namespace.metadata.deletionTimestamp);
      }
      if (namespaceActive.get(ns)) return true;
    }
  }
  return false;
}

/** Takes `user`'s mark off each CRD (merge patch: other files' marks stay). */
async function unmarkCrds(rest: KubeRest, crds: readonly TestCrd[], user: string): Promise<void> {
  for (const crd of crds) {
    await rest
      .request('PATCH', `${CRDS}/${crdName(crd)}`, {
        body: { metadata: { annotations: { [user]: null } } },
        contentType: 'application/merge-patch+json',
      })
      .catch((error: unknown) => {
        if (!isStatus(error, 404)) throw error;
      });
  }
}

/** A new test file's mark, for `joinCrds` and `leaveCrds`. */
export function newCrdUser(): string {
  return `${USER_PREFIX}${randomBytes(6).toString('hex')}`;
}

/** Creates or replaces each CRD with `user`'s mark (other files' marks stay) and waits until its kinds are served. */
export async function joinCrds(rest: KubeRest, crds: readonly TestCrd[], user: string): Promise<void> {
  for (const crd of crds) await putCrd(rest, crd, user);
  for (const crd of crds) await waitUntilServed(rest, crd);
}

/**
 * Takes `user`'s mark off each CRD and, unless something else still uses them (`usedByOthers`), deletes the
 * webhook configurations, then the CRDs with their objects. Each delete is conditional on the version read
 * with no mark on it, so a file that marks a CRD meanwhile keeps it.
 */
export async function leaveCrds(
  rest: KubeRest,
  crds: readonly TestCrd[],
  user: string,
  used: {
    readonly ownNamespaces: ReadonlySet<string>;
    readonly configurations?: readonly TestWebhookConfiguration[];
  },
): Promise<void> {
  await unmarkCrds(rest, crds, user);
  if (await usedByOthers(rest, crds, used.ownNamespaces)) return;
  // The webhook configurations first: dropping finalizers is an update they would send to a closed port.
  for (const configuration of used.configurations ?? []) {
    await deleteIgnoringNotFound(
      rest,
      `${webhookConfigurationPath(configuration)}/${configuration.metadata.name}`,
    );
  }
  for (const crd of crds) {
    await dropFinalizers(rest, crd);
    await deleteUnmarkedCrd(rest, crd);
  }
}

/**
 * The CRDs of a test file whose operator the kit does not run (its own process, say), used as `useOperator`
 * uses them: marked as this file's and installed before its first test, and after its last removed with
 * their objects unless another file still uses them. `namespace` names each test's namespace, whose objects
 * are this file's. A CRD installed without a mark would outlive the file, and `opkit deploy` of the operator
 * in a later file would find it there and leave it at undeploy.
 */
export function useCrds(crds: readonly TestCrd[], options: { readonly namespace: () => string }): void {
  const user = newCrdUser();
  const ownNamespaces = new Set<string>();
  let rest: KubeRest | undefined;
  beforeAll(async () => {
    rest = new KubeRest(testKubeConfig());
    await joinCrds(rest, crds, user);
  });
  beforeEach(() => {
    ownNamespaces.add(options.namespace());
  });
  afterAll(async () => {
    if (!rest) return;
    try {
      await leaveCrds(rest, crds, user, { ownNamespaces });
    } finally {
      rest.close();
    }
  });
}

/** A free loopback port and a fresh self-signed certificate in a directory of its own. */
async function openWebhookServer(
  certificate: WebhookOperatorOptions<InProcessWebhookOperator>['webhookServer']['certificate'],
): Promise<InProcessWebhookServer> {
  const host = '127.0.0.1';
  const port = await freePort();
  const certDir = mkdtempSync(join(tmpdir(), 'opkit-webhook-'));
  const serving = certificate({ commonName: 'in-process-webhook-server', hosts: [host] });
  writeFileSync(join(certDir, 'tls.crt'), serving.cert);
  writeFileSync(join(certDir, 'tls.key'), serving.key, { mode: 0o600 });
  const caBundle = Buffer.from(serving.cert).toString('base64');
  return {
    host,
    port,
    certPath: certDir,
    clientConfig: (path) => ({ url: `https://${host}:${port}${path}`, caBundle }),
  };
}

/**
 * Runs an operator in this process for each test of the file, against the shared test cluster: its CRDs are
 * installed before the file's first test (and waited for until served); each test gets a fresh manager from
 * `create` (given the test's namespace), started and elected before the test begins and stopped after it.
 *
 * With `webhookServer`, the operator's webhooks are served in this process: the kit picks a free loopback
 * port and writes a self-signed certificate for it, `crds` and `webhookConfigurations` are given the server
 * to point the CRDs' conversion and the admission webhooks at it, and each test begins once the manager's
 * webhook server listens. The webhook configurations are created after the CRDs and deleted before them.
 *
 * After the file's last test the CRDs (with their objects) and webhook configurations are removed, unless
 * something else still uses the CRDs: each file marks the CRDs it installed, and they stay while another
 * file's mark is on them, or an object of their kinds lives in a namespace that is neither this file's nor
 * being deleted. So two files of one operator can run side by side on one cluster (the `e2e` and `kwok`
 * projects against `OPKIT_TEST_KUBECONFIG`), and a run that does not use the kit keeps its objects. Objects
 * this file's tests left with finalizers (their operator stopped) keep their namespaces terminating until the
 * last user removes the CRDs. A file killed before its end leaves its mark, and the CRDs stay installed, as
 * a deployed operator's would.
 *
 * Limitation: a CRD's conversion and an admission webhook configuration call one server. Two files with
 * in-process webhooks for the same kinds side by side on one cluster take turns: each installs pointing at
 * its own server (both serve the same operator), and once the one installed last ends, the other's calls
 * to those webhooks fail until it ends too. Run such files one after the other on a shared cluster.
 */
export function useOperator<M extends InProcessWebhookOperator>(
  options: WebhookOperatorOptions<M>,
): UsedOperator<M>;
export function useOperator<M extends InProcessOperator>(options: OperatorOptions<M>): UsedOperator<M>;
export function useOperator(
  options: OperatorOptions<InProcessOperator> | WebhookOperatorOptions<InProcessWebhookOperator>,
): UsedOperator<InProcessOperator> {
  const user = newCrdUser();
  const verbose = Boolean(process.env.OPKIT_TEST_VERBOSE);
  const logs: string[] = [];
  const logSink = (line: string) => {
    logs.push(line);
    if (verbose) process.stderr.write(`${line}\n`);
  };
  const context = { logSink, verbose };
  const ownNamespaces = new Set<string>();
  let rest: KubeRest | undefined;
  let server: InProcessWebhookServer | undefined;
  let crds: readonly TestCrd[] = [];
  let configurations: readonly TestWebhookConfiguration[] = [];
  let manager: InProcessOperator | undefined;
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;

  /** The test's manager and, when it serves webhooks, whether its webhook server listens yet. */
  const create = (namespace: string): { manager: InProcessOperator; listening?: () => boolean } => {
    if (!('webhookServer' in options)) return { manager: options.create(namespace, context) };
    if (!server) throw new Error('useOperator: the webhook server exists only once the file has begun');
    const created = options.create(namespace, { ...context, webhookServer: server });
    return { manager: created, listening: () => Boolean(created.webhookServer?.address) };
  };

  beforeAll(async () => {
    rest = new KubeRest(testKubeConfig());
    if ('webhookServer' in options) {
      server = await openWebhookServer(options.webhookServer.certificate);
      crds = typeof options.crds === 'function' ? options.crds(server) : options.crds;
      configurations = (options.webhookConfigurations?.(server) ?? []).flatMap((c) => (c ? [c] : []));
    } else {
      crds = options.crds;
    }
    await joinCrds(rest, crds, user);
    for (const configuration of configurations) {
      const path = webhookConfigurationPath(configuration);
      const itemPath = `${path}/${configuration.metadata.name}`;
      const live = await getIfPresent<{ metadata: { resourceVersion: string } }>(rest, itemPath);
      const metadata = { ...configuration.metadata, resourceVersion: live?.metadata.resourceVersion };
      if (live) await rest.request('PUT', itemPath, { body: { ...configuration, metadata } });
      else await rest.request('POST', path, { body: configuration });
    }
  });
  afterAll(async () => {
    if (server) rmSync(server.certPath, { recursive: true, force: true });
    if (!rest) return;
    try {
      await leaveCrds(rest, crds, user, { ownNamespaces, configurations });
    } finally {
      rest.close();
    }
  });
  beforeEach(async () => {
    logs.length = 0;
    const namespace = options.namespace();
    ownNamespaces.add(namespace);
    const { manager: current, listening } = create(namespace);
    manager = current;
    stop = new AbortController();
    running = current.start(stop.signal);
    await Promise.race([current.elected, running]);
    if (listening)
      await Promise.race([eventually('the webhook server listening', async () => listening()), running]);
  });
  afterEach(async () => {
    stop?.abort();
    await running;
  });
  return {
    manager: () => {
      if (!manager) throw new Error('useOperator: the manager exists only inside a test');
      return manager;
    },
    logs,
  };
}
