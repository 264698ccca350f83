import { describe, expect, it } from 'vitest';
import { canonicalJson, definitionKey, type KeyInputs } from './definition-key.js';
import type { ImageDefinition } from './definitions.js';

const definition: ImageDefinition = {
  name: 'memcached',
  repositories: ['docker.io/library/memcached'],
  version: { debianPackage: 'memcached' },
  tags: ['version', 'minor'],
  description: 'Memcached',
  packages: ['memcached'],
  files: [{ path: '/usr/local/bin/tool', source: '/home/a/tool', mode: 0o755 }],
  user: { uid: 11211, gid: 11211, name: 'memcache' },
  cmd: ['memcached'],
};
const inputs: KeyInputs = {
  suite: 'bookworm',
  packageVersions: { memcached: '1.6.18-1+deb12u1', unrelated: '1' },
  fileIdentities: { '/usr/local/bin/tool': 'sha256:abc' },
};

describe('definitionKey', () => {
  it('is 16 hex digits and stable', () => {
    const key = definitionKey(definition, inputs);
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(definitionKey(definition, inputs)).toBe(key);
  });

  it('ignores key order, host paths of files and versions of other packages', () => {
    const key = definitionKey(definition, inputs);
    const reordered = Object.fromEntries(Object.entries(definition).reverse()) as unknown as ImageDefinition;
    expect(definitionKey(reordered, inputs)).toBe(key);
    const moved = { ...definition, files: [{ ...definition.files![0]!, source: '/elsewhere/tool' }] };
    expect(definitionKey(moved, inputs)).toBe(key);
    expect(
      definitionKey(definition, {
        ...inputs,
        packageVersions: { ...inputs.packageVersions, unrelated: '2' },
      }),
    ).toBe(key);
  });

  it('changes with the definition, the package versions, the files and the suite', () => {
    const key = definitionKey(definition, inputs);
    expect(definitionKey({ ...definition, cmd: ['memcached', '-v'] }, inputs)).not.toBe(key);
    expect(
      definitionKey(definition, { ...inputs, packageVersions: { memcached: '1.6.18-1+deb12u2' } }),
    ).not.toBe(key);
    expect(definitionKey(definition, { ...inputs, fileIdentities: { '/usr/local/bin/tool': 'x' } })).not.toBe(
      key,
    );
    expect(definitionKey(definition, { ...inputs, suite: 'trixie' })).not.toBe(key);
  });

  it('needs every package version and file identity', () => {
    expect(() => definitionKey(definition, { ...inputs, packageVersions: {} })).toThrow(/no version/);
    expect(() => definitionKey(definition, { ...inputs, fileIdentities: {} })).toThrow(/no identity/);
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: null } })).toBe('{"a":{"c":null,"d":[3,1]},"b":1}');
  });
});
