import { describe, expect, it } from 'vitest';
import { csvMetadataOf } from './csv-metadata.js';

describe('csvMetadataOf', () => {
  it('keeps the fields opm keeps, always with provider and API definitions', () => {
    expect(
      csvMetadataOf({
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        metadata: { name: 'x.v1.0.0' },
        spec: { displayName: 'X', install: { strategy: 'deployment' }, unknown: 1, keywords: [] },
      }),
    ).toStrictEqual({ apiServiceDefinitions: {}, crdDescriptions: {}, displayName: 'X', provider: {} });
  });
});
