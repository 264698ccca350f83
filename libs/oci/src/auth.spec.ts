import { describe, expect, it } from 'vitest';
import { basicAuthorization, mergeScopes, parseWwwAuthenticate } from './auth.js';

describe('parseWwwAuthenticate', () => {
  it('parses a bearer challenge', () => {
    expect(
      parseWwwAuthenticate(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.docker.io/token',
          service: 'registry.docker.io',
          scope: 'repository:library/busybox:pull',
        },
      },
    ]);
  });

  it('handles several challenges, spaces, token values, escapes and commas inside quotes', () => {
    expect(
      parseWwwAuthenticate([
        'Basic realm="Registry Realm", Bearer realm="http://h/t" , scope="repository:a:pull,push",error=insufficient_scope',
        'Custom  x="a\\"b"',
      ]),
    ).toEqual([
      { scheme: 'basic', params: { realm: 'Registry Realm' } },
      {
        scheme: 'bearer',
        params: { realm: 'http://h/t', scope: 'repository:a:pull,push', error: 'insufficient_scope' },
      },
      { scheme: 'custom', params: { x: 'a"b' } },
    ]);
  });

  it('lower-cases scheme and parameter names and skips junk', () => {
    expect(parseWwwAuthenticate('BEARER Realm="r", ,,  SERVICE=s')).toEqual([
      { scheme: 'bearer', params: { realm: 'r', service: 's' } },
    ]);
    expect(parseWwwAuthenticate('')).toEqual([]);
    expect(parseWwwAuthenticate('realm="orphan"')).toEqual([]);
  });
});

describe('scopes and basic auth', () => {
  it('merges actions per repository', () => {
    expect(mergeScopes(['repository:a:pull', 'repository:a:push repository:b:pull', ''])).toEqual([
      'repository:a:pull,push',
      'repository:b:pull',
    ]);
  });

  it('encodes basic credentials', () => {
    expect(basicAuthorization({ username: 'user', password: 'p:ss' })).toBe(
      `Basic ${Buffer.from('user:p:ss').toString('base64')}`,
    );
  });
});
