import { describe, expect, it } from 'vitest';
import { formatReference, parseReference } from './reference.js';
import { namesRegistryHost, splitTrailingTag } from './reference-grammar.js';

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

describe('the grammar the tools split names with', () => {
  it.each([
    ['quay.io/acme/bundle:v1', { name: 'quay.io/acme/bundle', tag: 'v1' }],
    ['localhost:5000/x', { name: 'localhost:5000/x' }],
    ['dist/images/catalog:v0.2.0', { name: 'dist/images/catalog', tag: 'v0.2.0' }],
    ['a:b:c', { name: 'a:b', tag: 'c' }],
    ['dir', { name: 'dir' }],
  ])('splits %s at its trailing tag', (text, expected) => {
    expect(splitTrailingTag(text)).toEqual(expected);
  });

  it('tells a registry host from a path as Docker does', () => {
    expect(['quay.io/x', 'localhost/x', 'host:5000/x', 'docker.io/x'].map(namesRegistryHost)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['bundles/memcached/0.1.0', 'localhost', 'quay.io', 'team/x'].map(namesRegistryHost)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
