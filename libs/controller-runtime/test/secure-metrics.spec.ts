import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { testKubeConfig, useTestNamespace } from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log/index.js';
import { Manager } from '../src/manager/manager.js';
import { RuntimeMetrics } from '../src/metrics/runtime-metrics.js';

// Secure metrics on a real API server: HTTPS, and only callers whose token the API server accepts and whose
// user may `get` the non-resource URL /metrics are served.

const ns = useTestNamespace({ prefix: 'metrics' });
const READER_ROLE = 'opkit-test-metrics-reader';
let manager: Manager;
const stop = new AbortController();
let running: Promise<void>;

/**
 * GET over HTTPS, trusting the server's own (self-signed) certificate as a scraper configured with it would.
 * The path is sent as written: Node's client neither resolves dot segments nor decodes escapes.
 */
function get(
  port: number,
  token?: string,
  path = '/metrics',
): Promise<{ status: number; body: string; cert: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        rejectUnauthorized: false,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        const cert = (res.socket as TLSSocket).getPeerX509Certificate()?.subjectAltName ?? '';
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        const location = res.headers.location;
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, cert, ...(location ? { location } : {}) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function serviceAccountToken(name: string): Promise<string> {
  const api = manager.apiClient;
  await api.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns.name } });
  const answer = await manager.transport.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${ns.name}/serviceaccounts/${name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
  });
  return answer.status.token;
}

beforeAll(async () => {
  manager = new Manager({
    kubeConfig: testKubeConfig(),
    namespaces: [ns.name],
    logger: createLogger({ level: 'error' }),
    metrics: new RuntimeMetrics(),
    metricsBindAddress: '127.0.0.1:0',
    metricsSecure: true,
  });
  running = manager.start(stop.signal);
  await manager.elected;
});

afterAll(async () => {
  stop.abort();
  await running;
  await manager.apiClient
    .delete({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      name: `${READER_ROLE}-${ns.name}`,
    })
    .catch(() => {});
});

describe('secure metrics', () => {
  it('serves HTTPS with a self-signed certificate for the host, and only to authorized callers', async () => {
    const port = manager.metricsAddress?.port ?? 0;
    const api = manager.apiClient;
    await api.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: READER_ROLE },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      },
      { fieldManager: 'secure-metrics-test', force: true },
    );
    const scraper = await serviceAccountToken('scraper');
    const stranger = await serviceAccountToken('stranger');
    await api.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${READER_ROLE}-${ns.name}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: READER_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: ns.name }],
    });

    const anonymous = await get(port);
    expect(anonymous.status).toBe(401);
    expect(anonymous.cert).toContain('IP Address:127.0.0.1');
    expect((await get(port, 'not-a-token')).status).toBe(401);
    const forbidden = await get(port, stranger);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toContain(`user "system:serviceaccount:${ns.name}:stranger" may not get /metrics`);
    const served = await get(port, scraper);
    expect(served.status).toBe(200);
    expect(served.body).toContain('# TYPE controller_runtime_reconcile_total counter');

    // Every authenticated user may get /apis/*; a path that only names /metrics once resolved is sent to
    // /metrics before anyone is asked, and there the stranger is refused.
    for (const path of ['/apis/../metrics', '/api/%2e%2e/metrics']) {
      const detour = await get(port, stranger, path);
      expect({ path, status: detour.status, location: detour.location }).toEqual({
        path,
        status: 301,
        location: '/metrics',
      });
      expect(detour.body).not.toContain('controller_runtime');
    }
  });
});
