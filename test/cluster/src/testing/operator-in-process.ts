import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { KubeApiError, KubeRest } from '../kube/rest.js';
import { eventually, testKubeConfig } from './index.js';

/** What the kit needs of an operator's manager: started with an abort signal, elected once it acts. */
export interface InProcessOperator {
  start(signal: AbortSignal): Promise<void>;
  readonly elected: Promise<unknown>;
}

/** The parts of a CustomResourceDefinition the kit reads. */
export interface TestCrd {
  readonly metadata: { readonly name?: string };
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

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A webhook configuration that calls the operator in this process (by URL, with its CA bundle). */
export interface TestWebhookConfiguration {
  readonly kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  readonly metadata: { readonly name?: string };
}

const webhookConfigurationPath = (c: TestWebhookConfiguration) =>
  `/apis/admissionregistration.k8s.io/v1/${c.kind.toLowerCase()}s`;

async function deleteIgnoringNotFound(rest: KubeRest, path: string): Promise<void> {
  await rest.request('DELETE', path).catch((error: unknown) => {
    if (!(error instanceof KubeApiError && error.status === 404)) throw error;
  });
}

function crdName(crd: TestCrd): string {
  return crd.metadata.name ?? `${crd.spec.names.plural}.${crd.spec.group}`;
}

/** Creates or replaces each CRD and waits until its kinds are served (`Established`). */
export async function installCrds(rest: KubeRest, crds: readonly TestCrd[]): Promise<void> {
  for (const crd of crds) {
    const path = `${CRDS}/${crdName(crd)}`;
    try {
      await rest.request('POST', CRDS, { body: crd });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 409)) throw error;
      const live = await rest.request<{ metadata: { resourceVersion: string } }>('GET', path);
      await rest.request('PUT', path, {
        body: { ...crd, metadata: { ...crd.metadata, resourceVersion: live.metadata.resourceVersion } },
      });
    }
    await eventually(`${crdName(crd)} established`, async () => {
      const live = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
        'GET',
        path,
      );
      return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
}

/**
 * Deletes each CRD and waits until it is gone. Objects of its kinds that still carry finalizers have them
 * taken off first: the operator that would remove them has stopped, and a CRD stays terminating while one
 * of its objects remains, which would block the next suite that installs it.
 */
export async function removeCrds(rest: KubeRest, crds: readonly TestCrd[]): Promise<void> {
  for (const crd of crds) {
    const storage = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
    if (storage) {
      const list = await rest
        .request<{ items: { metadata: { name: string; namespace?: string; finalizers?: string[] } }[] }>(
          'GET',
          `/apis/${crd.spec.group}/${storage.name}/${crd.spec.names.plural}`,
        )
        .catch(() => ({ items: [] })); // not served: nothing can hold the CRD
      for (const { metadata } of list.items) {
        if (!metadata.finalizers?.length) continue;
        const ns = metadata.namespace ? `/namespaces/${metadata.namespace}` : '';
        await rest
          .request(
            'PATCH',
            `/apis/${crd.spec.group}/${storage.name}${ns}/${crd.spec.names.plural}/${metadata.name}`,
            { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' },
          )
          .catch((error: unknown) => {
            if (!(error instanceof KubeApiError && error.status === 404)) throw error;
          });
      }
    }
    const path = `${CRDS}/${crdName(crd)}`;
    await deleteIgnoringNotFound(rest, path);
    await eventually(
      `${crdName(crd)} deleted`,
      async () => {
        try {
          await rest.request('GET', path);
          return false;
        } catch (error) {
          if (error instanceof KubeApiError && error.status === 404) return true;
          throw error;
        }
      },
      { timeoutMs: 60_000 },
    );
  }
}

/**
 * Runs an operator in this process for each test of the file, against the shared test cluster: its CRDs are
 * installed before the file's first test and removed after its last; each test gets a fresh manager from
 * `create` (given the test's namespace), started and elected before the test begins and stopped after it.
 */
export function useOperator<M extends InProcessOperator>(options: {
  readonly crds: readonly TestCrd[];
  /**
   * Webhook configurations calling the operator's webhook server in this process: created after the CRDs,
   * deleted first (nothing may call a webhook this process no longer serves).
   */
  readonly webhookConfigurations?: readonly TestWebhookConfiguration[];
  readonly namespace: () => string;
  readonly create: (namespace: string) => M;
}): { readonly manager: () => M } {
  let rest: KubeRest | undefined;
  let manager: M | undefined;
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    rest = new KubeRest(testKubeConfig());
    await installCrds(rest, options.crds);
    for (const configuration of options.webhookConfigurations ?? []) {
      const path = webhookConfigurationPath(configuration);
      await deleteIgnoringNotFound(rest, `${path}/${configuration.metadata.name}`);
      await rest.request('POST', path, { body: configuration });
    }
  });
  afterAll(async () => {
    if (!rest) return;
    for (const configuration of options.webhookConfigurations ?? []) {
      await deleteIgnoringNotFound(
        rest,
        `${webhookConfigurationPath(configuration)}/${configuration.metadata.name}`,
      );
    }
    await removeCrds(rest, options.crds);
  });
  beforeEach(async () => {
    manager = options.create(options.namespace());
    stop = new AbortController();
    running = manager.start(stop.signal);
    await Promise.race([manager.elected, running]);
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
  };
}
