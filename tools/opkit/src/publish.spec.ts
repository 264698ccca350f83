import type { KubeObject, Stored } from '@opkit/controller-runtime';
import { ApiError } from '@opkit/controller-runtime/client';
import { describe, expect, it } from 'vitest';
import { type CatalogSource, catalogSourceManifest, publishCatalog } from './publish.js';

describe('the CatalogSource of catalog publish and run bundle', () => {
  it('asks for the registry pod’s security context beside the extracted content', () => {
    const source = catalogSourceManifest({
      name: 'demo',
      namespace: 'olm',
      image: 'quay.io/acme/catalog:v1',
      extractContent: '/configs',
      securityContextConfig: 'restricted',
    });
    expect(source.spec).toEqual({
      sourceType: 'grpc',
      image: 'quay.io/acme/catalog:v1',
      grpcPodConfig: { extractContent: { catalogDir: '/configs' }, securityContextConfig: 'restricted' },
    });
  });

  it('leaves the choice to OLM when no security context is given', () => {
    const source = catalogSourceManifest({ name: 'demo', namespace: 'olm', address: '10.0.0.1:50051' });
    expect(source.spec).toEqual({ sourceType: 'grpc', address: '10.0.0.1:50051' });
  });
});

/** The API server's refusal of a request on the CatalogSource. */
const refusal = (status: number, reason: string, message: string) =>
  new ApiError(
    status,
    reason,
    `${status} ${reason}: ${message}`,
    'GET',
    '/catalogsources/demo-catalog',
    message,
  );

/** One CatalogSource on an API server in memory; `onRead` runs after each read, as another writer would. */
class FakeCatalogSources {
  stored: CatalogSource | undefined;
  version = 1;
  readonly calls: string[] = [];
  onRead: (() => void) | undefined;
  constructor(stored?: CatalogSource) {
    if (stored) this.put(stored);
  }
  put(object: CatalogSource): void {
    this.version += 1;
    this.stored = {
      ...structuredClone(object),
      metadata: { ...object.metadata, resourceVersion: String(this.version) },
      status: { connectionState: { lastObservedState: 'READY' } },
    };
  }
  async get<T extends KubeObject>(): Promise<Stored<T>> {
    this.calls.push('read');
    const found = structuredClone(this.stored);
    this.onRead?.();
    this.onRead = undefined;
    if (found === undefined) throw refusal(404, 'NotFound', 'not found');
    return found as unknown as Stored<T>;
  }
  async create<T extends KubeObject>(object: T): Promise<Stored<T>> {
    this.calls.push('create');
    if (this.stored) throw refusal(409, 'AlreadyExists', 'already exists');
    this.put(object as unknown as CatalogSource);
    return object as Stored<T>;
  }
  async apply<T extends KubeObject>(object: T): Promise<Stored<T>> {
    const wanted = (object as unknown as CatalogSource).metadata.resourceVersion;
    this.calls.push(`apply@${wanted ?? 'any'}`);
    if (wanted !== undefined && wanted !== this.stored?.metadata.resourceVersion) {
      throw refusal(409, 'Conflict', 'the object has been modified');
    }
    this.put(object as unknown as CatalogSource);
    return object as Stored<T>;
  }
}

const OURS = { labels: { owner: 'me' } };
const source = (labels: Record<string, string>): CatalogSource => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'CatalogSource',
  metadata: { name: 'demo-catalog', namespace: 'ops', labels },
  spec: { sourceType: 'grpc', image: 'registry.example/other:1' },
});

async function publishGuarded(api: FakeCatalogSources): Promise<void> {
  await publishCatalog({
    name: 'demo-catalog',
    namespace: 'ops',
    image: 'registry.example/demo-catalog:v1',
    ...OURS,
    timeoutMs: 1000,
    api,
    notOurs: (existing) =>
      existing.metadata.labels?.owner === 'me' ? undefined : `${existing.metadata.name} is not ours`,
    log: () => {},
  });
}

describe('a CatalogSource published for run bundle is never taken over', () => {
  it('is created when absent, and one created by someone else meanwhile is refused', async () => {
    const absent = new FakeCatalogSources();
    await publishGuarded(absent);
    expect(absent.calls.slice(0, 2)).toEqual(['read', 'create']);
    expect(absent.stored?.spec.image).toBe('registry.example/demo-catalog:v1');

    const raced = new FakeCatalogSources();
    raced.onRead = () => raced.put(source({ team: 'b' }));
    await expect(publishGuarded(raced)).rejects.toMatchObject({
      code: 'OPKIT_OBJECT_NOT_OURS',
      message:
        'CatalogSource ops/demo-catalog already exists and was not created by this run: it is left as it is',
    });
    expect(raced.stored?.spec.image).toBe('registry.example/other:1');
  });

  it('is applied over its own only as read just before, so a change of hands in between is refused', async () => {
    const own = new FakeCatalogSources(source({ owner: 'me' }));
    await publishGuarded(own);
    expect(own.calls.slice(0, 2)).toEqual(['read', 'apply@2']);
    expect(own.stored?.spec.image).toBe('registry.example/demo-catalog:v1');

    const foreign = new FakeCatalogSources(source({ team: 'b' }));
    await expect(publishGuarded(foreign)).rejects.toMatchObject({
      code: 'OPKIT_OBJECT_NOT_OURS',
      message: 'demo-catalog is not ours',
    });
    expect(foreign.calls).toEqual(['read']);

    // Taken over by someone else between the read and the apply: the apply fails, the next read refuses.
    const changed = new FakeCatalogSources(source({ owner: 'me' }));
    changed.onRead = () => changed.put(source({ team: 'b' }));
    await expect(publishGuarded(changed)).rejects.toMatchObject({ code: 'OPKIT_OBJECT_NOT_OURS' });
    expect(changed.calls).toEqual(['read', 'apply@2', 'read']);
    expect(changed.stored?.metadata.labels).toEqual({ team: 'b' });
  });
});
