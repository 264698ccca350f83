import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAndKey, selfSignedCertificate } from '../../serving/certificates.js';
import { Kubeconfig, KubeconfigError } from './kubeconfig.js';
import { Transport } from './transport.js';

const dir = mkdtempSync(join(tmpdir(), 'opkit-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Writes a kubeconfig file and returns its path. */
function kubeconfig(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const minimal = (server: string, user = '{token: abc}') => `
apiVersion: v1
kind: Config
current-context: ctx
contexts: [{name: ctx, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: '${server}'}}]
users: [{name: u, user: ${user}}]
`;

/** An API server stand-in that answers every request with who it thinks is calling. */
let server: Server;
let serverCert: CertificateAndKey;
let clientCert: CertificateAndKey;
let url: string;
beforeAll(async () => {
  serverCert = selfSignedCertificate({
    commonName: 'apiserver',
    hosts: ['127.0.0.1', 'kubernetes.test'],
  });
  clientCert = selfSignedCertificate({ commonName: 'jane', hosts: [] });
  server = createServer({ ...serverCert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ authorization: req.headers.authorization ?? '', client: peer?.subject?.CN ?? '' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

async function whoami(config: Kubeconfig): Promise<{ authorization: string; client: string }> {
  const transport = new Transport(config);
  try {
    return await transport.request({ method: 'GET', path: '/whoami' });
  } finally {
    await transport.close();
  }
}

describe('Kubeconfig', () => {
  it('connects with the cluster CA and a client certificate, inline or from files next to the kubeconfig', async () => {
    const inline = kubeconfig(
      'inline',
      minimal(
        url,
        `{client-certificate-data: ${b64(clientCert.cert)}, client-key-data: ${b64(clientCert.key)}}`,
      ).replace(`server: '${url}'`, `server: '${url}', certificate-authority-data: ${b64(serverCert.cert)}`),
    );
    expect(await whoami(Kubeconfig.load(inline))).toEqual({ authorization: '', client: 'jane' });

    writeFileSync(join(dir, 'ca.crt'), serverCert.cert);
    writeFileSync(join(dir, 'jane.crt'), clientCert.cert);
    writeFileSync(join(dir, 'jane.key'), clientCert.key);
    const files = kubeconfig(
      'files',
      minimal(url, '{client-certificate: jane.crt, client-key: jane.key}').replace(
        `server: '${url}'`,
        `server: '${url}', certificate-authority: ca.crt`,
      ),
    );
    expect(await whoami(Kubeconfig.load(files))).toEqual({ authorization: '', client: 'jane' });
  });

  it('checks the server certificate: refused without the CA, accepted for tls-server-name, skipped when told', async () => {
    await expect(whoami(Kubeconfig.load(kubeconfig('no-ca', minimal(url))))).rejects.toThrow(
      /self-signed|certificate/,
    );
    const byName = minimal(url.replace('127.0.0.1', 'localhost')).replace(
      "server: 'https://localhost",
      `certificate-authority-data: ${b64(serverCert.cert)}, tls-server-name: kubernetes.test, server: 'https://localhost`,
    );
    expect((await whoami(Kubeconfig.load(kubeconfig('by-name', byName)))).authorization).toBe('Bearer abc');
    const insecure = minimal(url).replace(
      `server: '${url}'`,
      `server: '${url}', insecure-skip-tls-verify: true`,
    );
    expect((await whoami(Kubeconfig.load(kubeconfig('insecure', insecure)))).authorization).toBe(
      'Bearer abc',
    );
  });

  it('sends a token, a token file read at each connection, or basic credentials', async () => {
    const insecure = (user: string) =>
      minimal(url, user).replace(`server: '${url}'`, `server: '${url}', insecure-skip-tls-verify: true`);
    writeFileSync(join(dir, 'token'), 'from-file\n');
    const fromFile = Kubeconfig.load(kubeconfig('token-file', insecure('{tokenFile: token}')));
    expect((await whoami(fromFile)).authorization).toBe('Bearer from-file');
    writeFileSync(join(dir, 'token'), 'rotated\n');
    expect((await whoami(fromFile)).authorization).toBe('Bearer rotated');
    const basic = Kubeconfig.load(kubeconfig('basic', insecure('{username: jane, password: secret}')));
    expect((await whoami(basic)).authorization).toBe(`Basic ${b64('jane:secret')}`);
  });

  it('runs an exec credential plugin with KUBERNETES_EXEC_INFO, and again only once its token expires', async () => {
    const plugin = join(dir, 'plugin.mjs');
    const calls = join(dir, 'plugin-calls');
    writeFileSync(calls, '');
    writeFileSync(
      plugin,
      `import { appendFileSync } from 'node:fs';
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
appendFileSync(${JSON.stringify(calls)}, info.spec.cluster.server + '\\n');
const soon = process.env.EXPIRES === 'soon';
console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential',
  status: { token: 'exec-' + process.env.GREETING, expirationTimestamp: new Date(Date.now() + (soon ? 1000 : 3600000)).toISOString() } }));`,
    );
    const user = (expires: string) =>
      `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(plugin)}], env: [{name: GREETING, value: hi}, {name: EXPIRES, value: ${expires}}], provideClusterInfo: true}}`;
    const insecure = (u: string) =>
      minimal(url, u).replace(`server: '${url}'`, `server: '${url}', insecure-skip-tls-verify: true`);
    const lasting = Kubeconfig.load(kubeconfig('exec', insecure(user('later'))));
    for (let i = 0; i < 3; i++) expect((await whoami(lasting)).authorization).toBe('Bearer exec-hi');
    expect(readFileSync(calls, 'utf8')).toBe(`${url}\n`);
    const expiring = Kubeconfig.load(kubeconfig('exec-soon', insecure(user('soon'))));
    for (let i = 0; i < 2; i++) await whoami(expiring);
    expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('merges KUBECONFIG files, the first to name an entry winning, and skips files that do not exist', () => {
    const first = kubeconfig('first', minimal('https://first.test'));
    const second = kubeconfig(
      'second',
      `current-context: other
contexts: [{name: other, context: {cluster: c2, user: u}}]
clusters: [{name: c, cluster: {server: 'https://second.test'}}, {name: c2, cluster: {server: 'https://c2.test'}}]`,
    );
    const env = { KUBECONFIG: [join(dir, 'missing'), first, second].join(':'), HOME: dir };
    expect(Kubeconfig.load(undefined, env).getCurrentCluster().server).toBe('https://first.test');
    const swapped = { KUBECONFIG: [second, first].join(':'), HOME: dir };
    expect(Kubeconfig.load(undefined, swapped).getCurrentCluster().server).toBe('https://c2.test');
  });

  it("names the current context's namespace, when it has one", () => {
    const plain = kubeconfig('no-namespace', minimal('https://plain.test'));
    expect(Kubeconfig.load(plain).namespace).toBeUndefined();
    const named = kubeconfig(
      'namespace',
      minimal('https://named.test').replace('{cluster: c, user: u}', '{cluster: c, user: u, namespace: ops}'),
    );
    expect(Kubeconfig.load(named).namespace).toBe('ops');
  });

  it('uses the service account in a pod: the API server from the environment, its CA and token', () => {
    const sa = join(dir, 'serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'ca.crt'), serverCert.cert);
    writeFileSync(join(sa, 'token'), 'sa-token');
    const config = Kubeconfig.inCluster(
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      sa,
    );
    expect(config.getCurrentCluster().server).toBe('https://[fd00::1]:443');
    expect(config.namespace).toBeUndefined();
    writeFileSync(join(sa, 'namespace'), 'ops\n');
    expect(
      Kubeconfig.inCluster({ KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' }, sa).namespace,
    ).toBe('ops');
    const empty = join(dir, 'empty-home');
    expect(() => Kubeconfig.load(undefined, { HOME: empty })).toThrow(
      new KubeconfigError(
        'no kubeconfig: give --kubeconfig, set KUBECONFIG, write ~/.kube/config, or run in a pod with a service account',
      ),
    );
  });

  it('refuses what it cannot use in one line naming the file and entry', () => {
    const cases: [string, string, RegExp][] = [
      [
        'no-context',
        minimal(url).replace('current-context: ctx', 'current-context: gone'),
        /context "gone" not found/,
      ],
      [
        'no-server',
        minimal('').replace("server: ''", 'insecure-skip-tls-verify: true'),
        /cluster "c": no server/,
      ],
      ['bad-url', minimal('not a url'), /server "not a url" is not a URL/],
      [
        'provider',
        minimal(url, '{auth-provider: {name: oidc}}'),
        /user "u": auth-provider plugins are not supported/,
      ],
      ['exec', minimal(url, '{exec: {command: x, apiVersion: v1}}'), /exec: apiVersion "v1" is not/],
      [
        'missing-file',
        minimal(url, '{client-certificate: nope.crt}'),
        /user "u": client-certificate .*nope\.crt/,
      ],
      ['not-yaml', 'clusters: [', /not YAML/],
      [
        'aliases',
        `a: &a [x, x, x, x, x, x, x, x, x, x]\n${'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n'}c: [${Array(200).fill('*b').join(', ')}]`,
        /not YAML/,
      ],
    ];
    for (const [name, text, message] of cases) {
      const path = kubeconfig(name, text);
      expect(() => Kubeconfig.load(path), name).toThrow(message);
      expect(() => Kubeconfig.load(path), name).toThrow(
        new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
    }
  });
});
