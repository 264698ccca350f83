import { describe, expect, it } from 'vitest';
import { dns1123LabelErrors, pullSpecError } from './pullspec.js';

describe('pullSpecError (docker reference.ParseNormalizedNamed)', () => {
  it.each([
    'quay.io/example/bundle:v1.0.0',
    'bundle',
    `localhost:5000/a/b@sha256:${'a'.repeat(64)}`,
    `registry.example.com:443/ns/img:tag@sha512:${'b'.repeat(128)}`,
  ])('accepts %s', (ref) => {
    expect(pullSpecError(ref)).toBeUndefined();
  });

  it.each([
    ['quay.io/Example/bundle:v1', 'invalid reference format: repository name must be lowercase'],
    ['quay.io/example/bundle:', 'invalid reference format'],
    ['quay.io/example/bundle@sha256:abc', 'invalid reference format'],
    [`quay.io/example/bundle@sha256:${'a'.repeat(63)}A`, 'invalid checksum digest format'],
    [`quay.io/example/bundle@md5:${'a'.repeat(32)}`, 'unsupported digest algorithm'],
    [
      'a'.repeat(64),
      `invalid repository name (${'a'.repeat(64)}), cannot specify 64-byte hexadecimal strings`,
    ],
  ])('rejects %s with %j', (ref, message) => {
    expect(pullSpecError(ref)).toBe(message);
  });
});

describe('dns1123LabelErrors (apimachinery IsDNS1123Label)', () => {
  it('accepts lower-case labels and explains the others', () => {
    expect(dns1123LabelErrors('my-operator')).toEqual([]);
    expect(dns1123LabelErrors('a.b')).toEqual(['must not contain dots']);
    expect(dns1123LabelErrors('x'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(dns1123LabelErrors('Foo')[0]).toMatch(/^a lowercase RFC 1123 label must consist of/);
  });
});
