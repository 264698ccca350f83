import { describe, expect, it } from 'vitest';
import { catalogSourceManifest } from './publish.js';

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
