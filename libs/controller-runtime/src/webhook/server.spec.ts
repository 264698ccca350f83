import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log/index.js';
import { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { type CertificateAndKey, selfSignedCertificate } from '../serving/certificates.js';
import { prng } from '../testing/prng.js';
import { defaultingHandler } from './admission.js';
import { BadRequestError } from './request.js';
import { WebhookServer } from './server.js';

// The webhook server answers every request, keeps serving while its certificate is replaced on disk, and is
// ready exactly while it completes TLS handshakes.

const dir = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
const certificate = (): CertificateAndKey =>
  selfSignedCertificate({ commonName: 'webhook', hosts: ['127.0.0.1'] });

/** Writes the pair the way a Secret volume update does: new files renamed over the old ones. */
function install(pair: CertificateAndKey): void {
  writeFileSync(join(dir, 'tls.key.new'), pair.key);
  writeFileSync(join(dir, 'tls.crt.new'), pair.cert);
  renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
  renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
}

const metrics = new RuntimeMetrics({ processMetrics: false });
const logged: { level: string; msg: string }[] = [];
const server = new WebhookServer({
  host: '127.0.0.1',
  port: 0,
  certPath: dir,
  certPollIntervalMs: 50,
  maxRequestBytes: 64 * 1024,
  limits: { handlerTimeoutMs: 500 },
  metrics,
  logger: createLogger({ level: 'debug', sink: (line) => logged.push(JSON.parse(line)) }),
});
server.register('/echo', async (review) => ({ echoed: review }));
server.register('/bad', async () => {
  throw new BadRequestError('not a review');
});
server.register('/broken', async () => {
  throw new Error('handler bug');
});
server.register('/nothing', async () => undefined);
const stuckSignals: AbortSignal[] = [];
server.register('/stuck', (_review, signal) => {
  stuckSignals.push(signal);
  return new Promise(() => {});
});
// Handlers that honour their signal as most APIs do: by rejecting with an AbortError of their own.
server.register('/honours', async (_review, signal) => {
  await sleep(60_000, undefined, { signal });
  return {};
});
const defaulterSignals: (AbortSignal | undefined)[] = [];
server.register(
  '/defaults',
  defaultingHandler(async (_obj, _request, signal) => {
    defaulterSignals.push(signal);
    await sleep(60_000, undefined, { signal });
  }),
);
const stop = new AbortController();
let running: Promise<void>;
let port: number;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly certificate: string;
}

function post(path: string, body: string | Buffer, headers: Record<string, string> = {}, method = 'POST') {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        rejectUnauthorized: false,
        agent: false,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        const peer = (res.socket as TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? '';
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, certificate: peer }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  install(certificate());
  running = server.start(stop.signal);
  while (!server.address) await new Promise((r) => setTimeout(r, 10));
  port = server.address.port;
});

afterAll(async () => {
  stop.abort();
  await running;
  process.off('unhandledRejection', onUnhandled);
  rmSync(dir, { recursive: true, force: true });
});

describe('WebhookServer', () => {
  it('serves a registered handler the decoded JSON and sends its answer back', async () => {
    const answer = await post('/echo', '{"kind":"AdmissionReview"}');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ echoed: { kind: 'AdmissionReview' } });
  });

  it('refuses what it cannot act on with 4xx and a reason, failing handlers with 500', async () => {
    expect((await post('/nope', '{}')).status).toBe(404);
    expect((await post('/echo', '', {}, 'GET')).status).toBe(405);
    expect((await post('/echo', '{}', { 'content-type': 'text/plain' })).status).toBe(400);
    expect(await post('/echo', '{"a":')).toMatchObject({ status: 400 });
    expect(await post('/bad', '{}')).toMatchObject({ status: 400, body: 'not a review\n' });
    expect(await post('/broken', '{}')).toMatchObject({ status: 500, body: 'internal error: handler bug\n' });
    const big = Buffer.alloc(65 * 1024, 0x20);
    expect((await post('/echo', big)).status).toBe(413);
    expect((await post('/echo', big, { 'transfer-encoding': 'chunked' })).status).toBe(413);
    expect((await post('/echo', '{}')).status).toBe(200);
    const counted = await metrics.webhookRequests.get();
    expect(counted.values).toContainEqual(
      expect.objectContaining({ labels: { webhook: '/broken', code: '500' }, value: 1 }),
    );
    expect(unhandled).toEqual([]);
  });

  it('answers 500 for a handler that answers nothing, and counts it as a panic, with no unhandled rejection', async () => {
    const panics = (await metrics.webhookPanics.get()).values[0]?.value ?? 0;
    expect(await post('/nothing', '{}')).toMatchObject({
      status: 500,
      body: 'internal error: the webhook at /nothing answered undefined; its handler must resolve to a review\n',
    });
    expect((await metrics.webhookPanics.get()).values[0]?.value).toBe(panics + 1);
    expect((await post('/echo', '{}')).status).toBe(200);
    expect(unhandled).toEqual([]);
  });

  it('answers 503 once a handler misses its deadline, and aborts its signal', async () => {
    expect(await post('/stuck', '{}')).toMatchObject({
      status: 503,
      body: 'webhook /stuck: no answer within 0.5 s\n',
    });
    expect(stuckSignals.map((signal) => signal.aborted)).toEqual([true]);
    const counted = await metrics.webhookRequests.get();
    expect(counted.values).toContainEqual(
      expect.objectContaining({ labels: { webhook: '/stuck', code: '503' }, value: 1 }),
    );
    const inFlight = await metrics.webhookRequestsInFlight.get();
    expect(inFlight.values).toContainEqual(
      expect.objectContaining({ labels: { webhook: '/stuck' }, value: 0 }),
    );
  });

  it('takes a client that leaves in the middle of its body for no error and no panic', async () => {
    const panics = (await metrics.webhookPanics.get()).values[0]?.value ?? 0;
    const errors = logged.filter((line) => line.level === 'error').length;
    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        socket.write(
          'POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":',
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await metrics.webhookPanics.get()).values[0]?.value ?? 0).toBe(panics);
    expect(logged.filter((line) => line.level === 'error')).toHaveLength(errors);
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 'debug', msg: 'webhook request abandoned by its client' }),
    );
    expect(unhandled).toEqual([]);
  });

  it('takes a client that leaves while its handler waits on the signal for no error and no panic', async () => {
    const panics = (await metrics.webhookPanics.get()).values[0]?.value ?? 0;
    const errors = logged.filter((line) => line.level === 'error').length;
    const review = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u-1',
        kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
        operation: 'CREATE',
        object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
      },
    });
    for (const path of ['/honours', '/defaults']) {
      await new Promise<void>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${review.length}\r\n\r\n${review}`,
          );
          setTimeout(() => socket.destroy(), 100);
        });
        socket.on('error', () => {});
        socket.on('close', () => resolve());
      });
    }
    await sleep(200);
    // The defaulter was given the request's signal, which aborted when its client left.
    expect(defaulterSignals.map((signal) => signal?.aborted)).toEqual([true]);
    expect((await metrics.webhookPanics.get()).values[0]?.value ?? 0).toBe(panics);
    expect(logged.filter((line) => line.level === 'error')).toHaveLength(errors);
    expect(unhandled).toEqual([]);
  });

  it('survives random bytes on the wire (seeded, 300 connections) and keeps answering', async () => {
    const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
    const random = prng(seed);
    const pieces = [
      'POST /echo HTTP/1.1\r\n',
      'GET / HTTP/1.1\r\n',
      'Host: x\r\n',
      'Content-Length: 9999999\r\n',
      'Content-Length: 3\r\n',
      'Transfer-Encoding: chunked\r\n',
      'content-type: application/json\r\n',
      '\r\n',
      '{"a":1}',
      '\u0000',
      'ffffffff\r\n',
      '0\r\n\r\n',
      '{{{{',
      '\r\n\r\n',
    ];
    for (let i = 0; i < Number(process.env.OPKIT_PROPERTY_CASES ?? 300); i++) {
      const bytes = Array.from(
        { length: 1 + Math.floor(random() * 8) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join('');
      await new Promise<void>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () =>
          socket.end(bytes),
        );
        socket.setTimeout(500, () => socket.destroy());
        socket.on('data', () => {});
        socket.on('error', () => resolve());
        socket.on('close', () => resolve());
      });
    }
    expect(unhandled, `seed ${seed}`).toEqual([]);
    expect((await post('/echo', '{}')).status).toBe(200);
  }, 30_000); // 300 TLS handshakes one after another: slow, not failing, on a loaded 2-core machine

  it('picks up a new certificate without a restart and keeps answering meanwhile', async () => {
    const before = (await post('/echo', '{}')).certificate;
    install(certificate());
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      const answer = await post('/echo', '{}');
      expect(answer.status).toBe(200);
      after = answer.certificate;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(after).not.toBe(before);
  });

  it('keeps the previous certificate while the new pair does not load', async () => {
    const current = (await post('/echo', '{}')).certificate;
    writeFileSync(join(dir, 'tls.key'), certificate().key); // a key that does not match the certificate
    await new Promise((r) => setTimeout(r, 200));
    expect(await post('/echo', '{}')).toMatchObject({ status: 200, certificate: current });
    install(certificate());
  });

  it('is ready while it completes handshakes, and not once stopped', async () => {
    await expect(Promise.resolve(server.startedChecker())).resolves.toBeUndefined();
    const other = new WebhookServer({ host: '127.0.0.1', port: 0, certPath: dir });
    other.register('/x', async () => ({}));
    await expect(Promise.resolve().then(() => other.startedChecker())).rejects.toThrow('not serving');
    const otherStop = new AbortController();
    const otherRunning = other.start(otherStop.signal);
    while (!other.address) await new Promise((r) => setTimeout(r, 10));
    await other.startedChecker();
    otherStop.abort();
    await otherRunning;
    await expect(Promise.resolve().then(() => other.startedChecker())).rejects.toThrow();
  });

  it('stops when its signal aborts while it binds its port', async () => {
    const other = new WebhookServer({ host: '127.0.0.1', port: 0, certPath: dir });
    other.register('/x', async () => ({}));
    const otherStop = new AbortController();
    const otherRunning = other.start(otherStop.signal);
    otherStop.abort();
    const stopped = await Promise.race([otherRunning.then(() => true), sleep(2_000).then(() => false)]);
    expect(stopped).toBe(true);
    await expect(Promise.resolve().then(() => other.startedChecker())).rejects.toThrow();
  });

  it('fails to start, naming the file, without a certificate', async () => {
    const missing = new WebhookServer({ port: 0, certPath: join(dir, 'absent') });
    missing.register('/x', async () => ({}));
    await expect(missing.start(new AbortController().signal)).rejects.toThrow(
      /cannot read .*absent\/tls\.crt/,
    );
  });
});
