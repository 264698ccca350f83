import { describe, expect, it } from 'vitest';
import { proxyFromEnvironment } from './proxy.js';
import { redact } from './redact.js';

describe('redact', () => {
  it.each([
    ['https://user:s3cret@proxy.test:3128', 'https://***@proxy.test:3128'],
    ['http://token-only@proxy.test/', 'http://***@proxy.test/'],
    ['HTTPS_PROXY="user:s3cret@proxy.test:3128"', 'HTTPS_PROXY="***@proxy.test:3128"'],
    [new URL('http://u:p%40ss@127.0.0.1:8080/v2/'), 'http://***@127.0.0.1:8080/v2/'],
    [
      'GET http://127.0.0.1:9000/data?X-Amz-Credential=AKIA1&X-Amz-Signature=abc123&X-Amz-Expires=300 failed',
      'GET http://127.0.0.1:9000/data?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=300 failed',
    ],
    [
      'realm https://auth.test/token?service=reg&access_token=eyJhbGci.x.y&scope=repository:a:pull',
      'realm https://auth.test/token?service=reg&access_token=***&scope=repository:a:pull',
    ],
    ['http://h.test/x?password=hunter2#frag', 'http://h.test/x?password=***#frag'],
    ['Authorization: Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl', 'Authorization: ***'],
    ['proxy-authorization=Basic dXNlcjpwYXNz', 'proxy-authorization=***'],
    ['sent "Basic dXNlcjpwYXNz" to it', 'sent "Basic ***" to it'],
    ['token Bearer abc.def-ghi_jkl~', 'token Bearer ***'],
    // A password with an unencoded `/`, `?` or `#`: everything up to the last `@` is hidden.
    ['HTTPS_PROXY=http://user:pa/ss@proxy.test:3128', 'HTTPS_PROXY=http://***@proxy.test:3128'],
    ['proxy "http://user:pa?ss@proxy.test:3128" refused', 'proxy "http://***@proxy.test:3128" refused'],
    ['http://user:p#a@ss@proxy.test:3128/x and more', 'http://***@proxy.test:3128/x and more'],
  ])('hides the secret of %s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it.each([
    'registry 127.0.0.1:5000 failed for 127.0.0.1:5000/team/app:v1 (manifest answered 500)',
    'busybox:1.36@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    'the credentials of me@example.test were rejected',
    'Bearer realm="https://auth.test/token",service="registry.test"',
    'bearer challenge has no realm',
    'rbac.authorization.k8s.io/v1 ClusterRole',
    'https://127.0.0.1:8443/v2/r/blobs/uploads/1?_state=s0&digest=sha256:00',
  ])('keeps %s as it is', (input) => {
    expect(redact(input)).toBe(input);
  });

  it.each([
    ['a colon and equals sign repeated', '=a:'],
    ['query separators repeated', '?a'],
    ['schemes repeated', 'a://'],
    ['headers repeated', 'authorization:'],
    ['credentials repeated', 'Bearer a '],
  ])('redacts 4 MiB of %s in well under a second, cut to 16 KiB', (_, unit) => {
    // A registry's error text reaches every message; a quadratic pattern took seconds on 40 KB of it, so on
    // 4 MiB it would take hours. The bound is the title's: a second leaves room for a loaded machine (a linear
    // pass takes tens of milliseconds alone) and none for a quadratic one.
    const hostile = unit.repeat(Math.ceil((4 * 1024 * 1024) / unit.length));
    const started = performance.now();
    const redacted = redact(hostile);
    expect(performance.now() - started).toBeLessThan(1000);
    // 16 KiB kept, each credential in it replaced by `***`.
    expect(redacted.length).toBeLessThan(32 * 1024);
    expect(redacted.endsWith('…')).toBe(true);
  });

  it.each([
    ['a password with a slash', 'http://alice:pa/ss@proxy.test:3128'],
    ['a password with a question mark', 'http://alice:pa?ss@proxy.test:3128'],
    ['a password with a hash', 'http://alice:pa#ss@proxy.test:3128'],
    ['no scheme and a slash', 'alice:pa/ss@proxy.test:3128'],
  ])('repeats nothing of the user information of a proxy URL it cannot parse: %s', (_, value) => {
    const message = (() => {
      try {
        proxyFromEnvironment({ HTTPS_PROXY: value });
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    })();
    expect(message).not.toContain('alice');
    expect(message).not.toContain('ss@');
    expect(message).toMatch(/^HTTPS_PROXY="(http:\/\/)?\*\*\*@proxy\.test:3128": /);
  });

  it('leaves no password of a refused proxy in its error', () => {
    const error = (() => {
      try {
        proxyFromEnvironment({ HTTPS_PROXY: 'https://alice:s3cret@proxy.test:3128' });
      } catch (err) {
        return err as Error;
      }
      throw new Error('an https:// proxy was accepted');
    })();
    expect(error.message).toBe(
      'HTTPS_PROXY="https://***@proxy.test:3128": only http:// proxies are supported',
    );
  });
});
