import { describe, expect, it } from 'vitest';
import { requestTarget } from './request-target.js';

// One spelling of every path is served; every other spelling is sent there or refused, before anyone is asked
// whether the caller may have it.

describe('requestTarget', () => {
  it('serves a canonical path with its decoded path and query', () => {
    const target = requestTarget('/healthz/ping?verbose&exclude=a');
    expect(target).toMatchObject({ kind: 'serve', path: '/healthz/ping' });
    expect(target.kind === 'serve' && target.query.getAll('exclude')).toEqual(['a']);
    expect(requestTarget('/caf%C3%A9')).toMatchObject({ kind: 'serve', path: '/café' });
    expect(requestTarget('/100%25')).toMatchObject({ kind: 'serve', path: '/100%' });
    expect(requestTarget('/a%20b')).toMatchObject({ kind: 'serve', path: '/a b' });
    expect(requestTarget('/healthz/')).toMatchObject({ kind: 'serve', path: '/healthz/' });
  });

  it.each([
    ['/apis/../metrics', '/metrics'],
    ['/api/%2e%2e/metrics', '/metrics'],
    ['/api/%2E%2E/metrics', '/metrics'],
    ['/api/.%2e/metrics', '/metrics'],
    ['/../../metrics', '/metrics'],
    ['/./metrics', '/metrics'],
    ['/api//../metrics', '/metrics'],
    ['/metrics/.', '/metrics'],
    ['/healthz/./', '/healthz/'],
    ['/healthz//ping', '/healthz/ping'],
    ['/me%74rics', '/metrics'],
    ['/caf%c3%a9', '/caf%C3%A9'],
    ['/a b', '/a%20b'],
    ['/apis/../metrics?x=/../y', '/metrics?x=/../y'],
    ['/apis/..?', '/?'],
    ['/a/..?q=\u00e9', '/?q=%E9'],
  ])('redirects %j to %j, as Go’s ServeMux does for an unclean path', (url, location) => {
    expect(requestTarget(url)).toEqual({ kind: 'redirect', location });
    // The place it redirects to is served as is.
    expect(requestTarget(location).kind).toBe('serve');
  });

  it.each([
    ['//metrics', 'not a path'],
    ['metrics', 'not a path'],
    ['*', 'not a path'],
    ['http://host/metrics', 'not a path'],
    ['/metrics#x', 'a fragment'],
    ['/api%2F..%2Fmetrics', 'an escaped "/"'],
    ['/api%2f..%2fmetrics', 'an escaped "/"'],
    ['/%zz', 'bad percent-escape "%zz"'],
    ['/50%', 'bad percent-escape "%"'],
    ['/%00', 'a control character'],
    ['/%0a', 'a control character'],
    ['/%FF', 'not UTF-8'],
    ['/%C3', 'not UTF-8'],
  ])('refuses %j: %s', (url, reason) => {
    const target = requestTarget(url);
    expect(target.kind).toBe('refuse');
    expect(target.kind === 'refuse' && target.reason).toContain(reason);
  });
});
