import { describe, expect, it } from 'vitest';
import { formatReference, parseReference } from './reference.js';

const digest = `sha256:${'a'.repeat(64)}`;

describe('parseReference', () => {
  it.each([
    ['127.0.0.1:5000/team/bundle:v1', { registry: '127.0.0.1:5000', repository: 'team/bundle', tag: 'v1' }],
    ['localhost/x', { registry: 'localhost', repository: 'x' }],
    [`quay.io/org/cat@${digest}`, { registry: 'quay.io', repository: 'org/cat', digest }],
    [`quay.io/org/cat:v1@${digest}`, { registry: 'quay.io', repository: 'org/cat', tag: 'v1', digest }],
    ['busybox', { registry: 'docker.io', repository: 'library/busybox' }],
    ['user/app:1.0', { registry: 'docker.io', repository: 'user/app', tag: '1.0' }],
    ['[::1]:5000/a:b', { registry: '[::1]:5000', repository: 'a', tag: 'b' }],
  ])('parses %s', (input, expected) => {
    expect(parseReference(input)).toEqual(expected);
  });

  it.each([
    ['', /empty/],
    ['reg.io/Upper:tag', /repository component "Upper"/],
    ['reg.io/a:bad tag', /invalid tag/],
    ['reg.io/a@sha256:123', /unsupported digest/],
    ['reg.io/a:-x', /invalid tag/],
  ])('rejects %j', (input, message) => {
    expect(() => parseReference(input)).toThrow(message);
    expect(() => parseReference(input)).toThrow(expect.objectContaining({ code: 'OCI_REFERENCE_INVALID' }));
  });

  it('formats references back', () => {
    expect(formatReference(parseReference('127.0.0.1:5000/a/b:c'))).toBe('127.0.0.1:5000/a/b:c');
    expect(formatReference(parseReference(`r.io/a@${digest}`))).toBe(`r.io/a@${digest}`);
  });
});
