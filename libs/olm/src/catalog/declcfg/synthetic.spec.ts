import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../model/validate.js';
import { syntheticCatalog } from './synthetic.js';
import { serializeCatalog } from './write.js';

describe('syntheticCatalog', () => {
  it('has the requested size and passes validation', () => {
    const c = syntheticCatalog({ packages: 3, bundlesPerPackage: 57 });
    expect(c.packages).toHaveLength(3);
    expect(c.bundles).toHaveLength(171);
    expect(validateCatalog(c).filter((r) => r.level === 'error')).toEqual([]);
  });

  it('uses skips and skipRanges on the minor heads', () => {
    const stable = syntheticCatalog({ packages: 1, bundlesPerPackage: 20 }).channels.find(
      (ch) => ch.name === 'stable',
    )!;
    expect(stable.entries[9]).toEqual({
      name: 'pkg-000.v1.0.9',
      skips: Array.from({ length: 9 }, (_, i) => `pkg-000.v1.0.${i}`),
      skipRange: '>=1.0.0 <1.0.9',
    });
    expect(stable.entries[19]?.replaces).toBe('pkg-000.v1.0.9');
  });

  it('is deterministic', () => {
    expect(serializeCatalog(syntheticCatalog({ packages: 2, bundlesPerPackage: 30 }))).toBe(
      serializeCatalog(syntheticCatalog({ packages: 2, bundlesPerPackage: 30 })),
    );
  });
});
