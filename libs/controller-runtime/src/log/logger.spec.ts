import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, currentLogger, getLogContext, type LoggerOptions, withLogContext } from './logger.js';

const TS = '2026-01-01T00:00:00.000Z';

/** A logger writing parsed lines into an array, at a fixed time. */
function capture(options: Omit<LoggerOptions, 'sink' | 'clock'> = {}) {
  const lines: unknown[] = [];
  const log = createLogger({
    ...options,
    sink: (line) => lines.push(JSON.parse(line)),
    clock: () => Date.parse(TS),
  });
  return { lines, log };
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('createLogger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes one JSON object per line with ts, level, msg and fields', () => {
    const { lines, log } = capture({ fields: { component: 'manager' } });
    log.info('starting', { workers: 2 });
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'starting', component: 'manager', workers: 2 },
    ]);
  });

  it('writes to stderr by default', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    createLogger().warn('careful');
    expect(write).toHaveBeenCalledTimes(1);
    const line = String(write.mock.calls[0]?.[0]);
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toStrictEqual({
      ts: expect.stringMatching(/Z$/),
      level: 'warn',
      msg: 'careful',
    });
  });

  it('drops lines below the level', () => {
    const { lines, log } = capture({ level: 'warn' });
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(lines).toStrictEqual([
      { ts: TS, level: 'warn', msg: 'w' },
      { ts: TS, level: 'error', msg: 'e' },
    ]);
  });

  it('serialises errors with their code, and the stack only at debug level', () => {
    const err = Object.assign(new Error('conflict on cache'), { code: 'KUBE_API_ERROR' });
    const info = capture();
    info.log.error('reconcile failed', err, { attempt: 3 });
    expect(info.lines).toStrictEqual([
      {
        ts: TS,
        level: 'error',
        msg: 'reconcile failed',
        attempt: 3,
        error: 'conflict on cache',
        errorCode: 'KUBE_API_ERROR',
      },
    ]);

    const debug = capture({ level: 'debug' });
    debug.log.error('reconcile failed', err);
    expect(debug.lines).toStrictEqual([
      {
        ts: TS,
        level: 'error',
        msg: 'reconcile failed',
        error: 'conflict on cache',
        errorCode: 'KUBE_API_ERROR',
        stack: err.stack,
      },
    ]);
  });

  it('serialises thrown non-errors and error values in fields', () => {
    const { lines, log } = capture();
    log.error('odd throw', 'just a string');
    log.warn('retrying', { lastError: Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }) });
    expect(lines).toStrictEqual([
      { ts: TS, level: 'error', msg: 'odd throw', error: 'just a string' },
      { ts: TS, level: 'warn', msg: 'retrying', lastError: { error: 'timeout', errorCode: 'ETIMEDOUT' } },
    ]);
  });

  it('adds child fields over the parent ones', () => {
    const { lines, log } = capture({ fields: { component: 'manager', controller: 'none' } });
    log.child({ controller: 'memcached' }).child({ worker: 1 }).info('hi', { worker: 2 });
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'hi', component: 'manager', controller: 'memcached', worker: 2 },
    ]);
  });

  it('never lets fields replace ts, level or msg', () => {
    const { lines, log } = capture();
    log.info('real', { msg: 'fake', level: 'error' });
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'real', 'fields.msg': 'fake', 'fields.level': 'error' },
    ]);
  });

  it('redacts secrets at any depth', () => {
    // GIVEN fields holding credentials
    const { lines, log } = capture();
    log.info('connecting', {
      user: 'admin',
      password: 'hunter2',
      bearerToken: 'abc',
      config: { clientSecret: 's3cr3t', endpoint: 'https://kube', nested: [{ apiToken: 'x' }] },
    });
    // THEN their values are never written
    expect(lines).toStrictEqual([
      {
        ts: TS,
        level: 'info',
        msg: 'connecting',
        user: 'admin',
        password: '[redacted]',
        bearerToken: '[redacted]',
        config: {
          clientSecret: '[redacted]',
          endpoint: 'https://kube',
          nested: [{ apiToken: '[redacted]' }],
        },
      },
    ]);
  });

  it('writes values JSON cannot hold without throwing', () => {
    const { lines, log } = capture();
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    log.info('odd values', { big: 10n, loop, when: new Date(TS) });
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'odd values', big: '10', loop: { a: 1, self: '[Circular]' }, when: TS },
    ]);
  });
});

describe('log context', () => {
  const reconcile = { controller: 'memcached', namespace: 'team-a', name: 'cache', reconcileID: 'r-1' };

  it('carries the reconcile fields across await', async () => {
    // GIVEN a logger created outside any reconcile
    const { lines, log } = capture();
    // WHEN it logs deep in the async call chain of a reconcile
    const result = await withLogContext(reconcile, async () => {
      await tick();
      log.info('ensuring deployment', { replicas: 3 });
      await Promise.resolve();
      return 'done';
    });
    // THEN the line carries the reconcile fields, and logs outside the reconcile do not
    log.info('idle');
    expect(result).toBe('done');
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'ensuring deployment', ...reconcile, replicas: 3 },
      { ts: TS, level: 'info', msg: 'idle' },
    ]);
  });

  it('keeps concurrent reconciles apart', async () => {
    const { lines, log } = capture();
    const run = (name: string, reconcileID: string) =>
      withLogContext({ controller: 'memcached', namespace: 'team-a', name, reconcileID }, async () => {
        await tick();
        log.info('step 1');
        await tick();
        log.info('step 2');
      });
    await Promise.all([run('a', 'r-a'), run('b', 'r-b')]);
    const fields = (lines as { msg: string; name: string; reconcileID: string }[]).map((l) => [
      l.name,
      l.reconcileID,
    ]);
    expect(fields.sort()).toStrictEqual([
      ['a', 'r-a'],
      ['a', 'r-a'],
      ['b', 'r-b'],
      ['b', 'r-b'],
    ]);
  });

  it('nests contexts and lets explicit fields win', () => {
    const { lines, log } = capture();
    withLogContext({ controller: 'memcached' }, () =>
      withLogContext({ name: 'cache', reconcileID: 'r-2' }, () => {
        expect(getLogContext()).toStrictEqual({ controller: 'memcached', name: 'cache', reconcileID: 'r-2' });
        log.child({ name: 'override' }).info('hi');
      }),
    );
    expect(getLogContext()).toStrictEqual({});
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'hi', controller: 'memcached', name: 'override', reconcileID: 'r-2' },
    ]);
  });

  it('binds the context with currentLogger for use outside the call chain', () => {
    const { lines, log } = capture({ fields: { component: 'manager' } });
    const bound = withLogContext(reconcile, () => currentLogger(log));
    bound.info('later');
    expect(currentLogger(log)).toBe(log);
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'later', component: 'manager', ...reconcile },
    ]);
  });

  it('redacts secrets in the context too', () => {
    const { lines, log } = capture();
    withLogContext({ controller: 'memcached', token: 'abc' }, () => log.info('hi'));
    expect(lines).toStrictEqual([
      { ts: TS, level: 'info', msg: 'hi', controller: 'memcached', token: '[redacted]' },
    ]);
  });
});
