import { describe, expect, it } from 'vitest';
import { goFormatUnstructured, goQuote, goQuoteSlice } from '../go-compat/go-format.js';
import { goErrorText, newAggregate } from './go-errors.js';
import { imageReferenceProblem } from './image-reference.js';
import { bytePrefix, goJsonSyntaxErrorOffset } from './json-syntax.js';
import { isDns1035Label, isDns1123Subdomain, isLabelValue, isQualifiedName } from './k8s-names.js';

describe('Kubernetes names', () => {
  it('uses apimachinery messages', () => {
    expect(isDns1123Subdomain('Demo.v1')).toStrictEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(isDns1035Label('1abc')[0]).toMatch(
      /^a DNS-1035 label must consist of .* \(e\.g\. 'my-name', {2}or 'abc-123', /,
    );
    expect(isLabelValue('x'.repeat(64))[0]).toBe('must be no more than 63 bytes');
    expect(isQualifiedName('a/b/c')[0]).toMatch(/^a valid label key must consist of/);
    expect(isQualifiedName('example.com/ok')).toStrictEqual([]);
  });
});

describe('Go formatting', () => {
  it('quotes like %q and %+q', () => {
    expect(goQuote('a"b\n')).toBe('"a\\"b\\n"');
    expect(goQuoteSlice(['é', 'x'], true)).toBe('["\\u00e9" "x"]');
  });

  it('prints unstructured objects like %v', () => {
    expect(
      goFormatUnstructured({
        kind: 'ConfigMap',
        metadata: { name: 'x', labels: { b: 'y', a: 'z' } },
        data: { n: 1.5, l: [1, true, null] },
      }),
    ).toBe(
      '&{map[data:map[l:[1 true <nil>] n:1.5] kind:ConfigMap metadata:map[labels:map[a:z b:y] name:x]]}',
    );
  });

  it('flattens and de-duplicates aggregated errors', () => {
    expect(goErrorText(newAggregate([{ aggregate: ['a', 'b'] }, 'c', 'a'])!)).toBe('[a, b, c]');
    expect(goErrorText(newAggregate([`outer: ${goErrorText({ aggregate: ['x', 'y'] })}`])!)).toBe(
      'outer: [x, y]',
    );
  });
});

describe('JSON syntax errors', () => {
  it("reports Go's offsets", () => {
    const bad = '[{"a": 1,}]';
    const offset = goJsonSyntaxErrorOffset(bad)!;
    expect([offset, bytePrefix(bad, offset)]).toStrictEqual([10, '[{"a": 1,}']);
    expect(goJsonSyntaxErrorOffset('[1, 2')).toBe(5);
    expect(goJsonSyntaxErrorOffset('[] x')).toBe(4);
    expect(goJsonSyntaxErrorOffset('{"a": [1, 2.5e3, "\\u00e9"]}')).toBeUndefined();
  });
});

describe('image references', () => {
  it('accepts what ParseNormalizedNamed accepts', () => {
    for (const ok of [
      'busybox',
      'docker.io/library/memcached:1.6',
      `localhost:5000/a/b@sha256:${'a'.repeat(64)}`,
      'quay.io/x/y:v1.0.0',
    ]) {
      expect(imageReferenceProblem(ok)).toBeUndefined();
    }
  });

  it('rejects with its messages', () => {
    expect(imageReferenceProblem('quay.io/X/y:1')).toBe(
      'invalid reference format: repository name must be lowercase',
    );
    expect(imageReferenceProblem('quay.io/x/y:bad tag')).toBe('invalid reference format');
    // An algorithm in capitals is caught by the name's lowercase check first, as in Go.
    expect(imageReferenceProblem(`quay.io/x/y@SHA256:${'a'.repeat(64)}`)).toBe(
      'invalid reference format: repository name must be lowercase',
    );
    expect(imageReferenceProblem(`quay.io/x/y@md5:${'a'.repeat(32)}`)).toBe('unsupported digest algorithm');
    expect(imageReferenceProblem('quay.io/x/y@sha256:abc')).toBe('invalid reference format');
    expect(imageReferenceProblem(`quay.io/x/y@sha256:${'a'.repeat(40)}`)).toBe(
      'invalid checksum digest length',
    );
  });
});
