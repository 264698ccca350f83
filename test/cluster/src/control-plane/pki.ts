import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ClusterError } from '../errors.js';
import { NODE_NETWORK, REAL_NODE_NAME } from '../node/addresses.js';
import { COREDNS_USER } from '../node/coredns.js';

const run = promisify(execFile);

/** File paths of one cluster's certificates and keys; all generated fresh for each cluster. */
export interface Pki {
  readonly dir: string;
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
  /** The real node's kubelet serving certificate (for the node IP), checked by the API server. */
  readonly kubeletServing: { readonly cert: string; readonly key: string };
  /** Client certificates by user name. */
  readonly clients: Readonly<Record<ClientName, { cert: string; key: string }>>;
  /**
   * The aggregation layer's: a CA of its own and the API server's client certificate for requests it proxies
   * to aggregated API servers (OLM's packageserver), which trust the user headers only from it.
   */
  readonly frontProxy: { readonly caCert: string; readonly client: { cert: string; key: string } };
}

/** The name aggregated API servers accept proxied requests from. */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';

const CLIENT_EXTENSIONS =
  'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n';

/** The identities the control plane components and the test client use (CN = user, O = group). */
export const CLIENT_IDENTITIES = {
  admin: { cn: 'opkit-admin', o: 'system:masters' },
  controllerManager: { cn: 'system:kube-controller-manager', o: '' },
  scheduler: { cn: 'system:kube-scheduler', o: '' },
  kwok: { cn: 'kwok-controller', o: 'system:masters' },
  // The real node: the API server's client for the kubelet API, the kubelet itself (Node authorizer),
  // kube-proxy (bootstrap role system:node-proxier) and CoreDNS (a ClusterRole of its own).
  kubeletClient: { cn: 'kube-apiserver-kubelet-client', o: 'system:masters' },
  node: { cn: `system:node:${REAL_NODE_NAME}`, o: 'system:nodes' },
  kubeProxy: { cn: 'system:kube-proxy', o: '' },
  coredns: { cn: COREDNS_USER, o: '' },
} as const;
export type ClientName = keyof typeof CLIENT_IDENTITIES;

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') {
      throw new ClusterError(
        'CLUSTER_OPENSSL_MISSING',
        "'openssl' is not installed: run 'apt-get install openssl'",
      );
    }
    throw new ClusterError(
      'CLUSTER_PKI_FAILED',
      `openssl ${args[0]} failed: ${e.stderr?.trim() ?? e.message}`,
    );
  }
}

/** ECDSA P-256 keys: fast to generate, accepted for serving, client and service-account signing. */
async function newKey(dir: string, name: string): Promise<string> {
  const key = join(dir, `${name}.key`);
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key], dir);
  return key;
}

async function signedCert(
  dir: string,
  name: string,
  subject: string,
  extensions: string,
  ca: { cert: string; key: string },
): Promise<{ cert: string; key: string }> {
  const key = await newKey(dir, name);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.crt`);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, extensions);
  await openssl(['req', '-new', '-key', key, '-subj', subject, '-out', csr], dir);
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-set_serial',
      `0x${randomBytes(12).toString('hex')}`,
      '-days',
      '30',
      '-extfile',
      ext,
      '-out',
      cert,
    ],
    dir,
  );
  return { cert, key };
}

const serverExtensions = (sans: readonly string[]) =>
  [
    'basicConstraints=CA:FALSE',
    'keyUsage=digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    `subjectAltName=${sans.join(',')}`,
    '',
  ].join('\n');

/**
 * Generates a CA, the aggregation layer's CA and client certificate, the apiserver's serving certificate (valid for 127.0.0.1, the node IP, the service IP and
 * the in-cluster service names), the kubelet's serving certificate, client certificates for the components
 * and an admin, and the service-account signing key pair.
 */
export async function generatePki(dir: string, serviceIp: string): Promise<Pki> {
  const { nodeIP } = NODE_NETWORK;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caKey = await newKey(dir, 'ca');
  const caCert = join(dir, 'ca.crt');
  await openssl(
    ['req', '-x509', '-new', '-key', caKey, '-subj', '/CN=opkit-local-ca', '-days', '30', '-out', caCert],
    dir,
  );
  const ca = { cert: caCert, key: caKey };
  const server = await signedCert(
    dir,
    'apiserver',
    '/CN=kube-apiserver',
    serverExtensions([
      'IP:127.0.0.1',
      `IP:${nodeIP}`,
      `IP:${serviceIp}`,
      'DNS:localhost',
      'DNS:kubernetes',
      'DNS:kubernetes.default',
      'DNS:kubernetes.default.svc',
      'DNS:kubernetes.default.svc.cluster.local',
    ]),
    ca,
  );
  const kubeletServing = await signedCert(
    dir,
    'kubelet-serving',
    `/CN=${REAL_NODE_NAME}`,
    serverExtensions([`IP:${nodeIP}`, `DNS:${REAL_NODE_NAME}`]),
    ca,
  );
  const clients = {} as Record<ClientName, { cert: string; key: string }>;
  await Promise.all(
    (Object.keys(CLIENT_IDENTITIES) as ClientName[]).map(async (name) => {
      const { cn, o } = CLIENT_IDENTITIES[name];
      const subject = o ? `/O=${o}/CN=${cn}` : `/CN=${cn}`;
      clients[name] = await signedCert(dir, `client-${name}`, subject, CLIENT_EXTENSIONS, ca);
    }),
  );
  const frontProxyKey = await newKey(dir, 'front-proxy-ca');
  const frontProxyCa = join(dir, 'front-proxy-ca.crt');
  await openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      frontProxyKey,
      '-subj',
      '/CN=opkit-front-proxy-ca',
      '-days',
      '30',
      '-out',
      frontProxyCa,
    ],
    dir,
  );
  const frontProxyClient = await signedCert(
    dir,
    'front-proxy-client',
    `/CN=${FRONT_PROXY_CLIENT}`,
    CLIENT_EXTENSIONS,
    {
      cert: frontProxyCa,
      key: frontProxyKey,
    },
  );
  const serviceAccountKey = await newKey(dir, 'service-account');
  const serviceAccountPub = join(dir, 'service-account.pub');
  await openssl(['pkey', '-in', serviceAccountKey, '-pubout', '-out', serviceAccountPub], dir);
  return {
    dir,
    caCert,
    caKey,
    serverCert: server.cert,
    serverKey: server.key,
    serviceAccountKey,
    serviceAccountPub,
    kubeletServing,
    clients,
    frontProxy: { caCert: frontProxyCa, client: frontProxyClient },
  };
}

/** A kubeconfig with embedded credentials for one identity. */
export function writeKubeconfig(path: string, server: string, pki: Pki, client: ClientName): void {
  const b64 = (file: string) => readFileSync(file).toString('base64');
  const { cert, key } = pki.clients[client];
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: opkit-local',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(pki.caCert)}`,
    'users:',
    `- name: ${CLIENT_IDENTITIES[client].cn}`,
    '  user:',
    `    client-certificate-data: ${b64(cert)}`,
    `    client-key-data: ${b64(key)}`,
    'contexts:',
    '- name: opkit-local',
    '  context:',
    '    cluster: opkit-local',
    `    user: ${CLIENT_IDENTITIES[client].cn}`,
    'current-context: opkit-local',
    '',
  ].join('\n');
  writeFileSync(path, text, { mode: 0o600 });
}

/** The certificate authority an envtest environment's webhook configurations trust, and what it signed. */
export interface WebhookPki {
  /** PEM of the CA: the `caBundle` of every webhook client configuration the environment installs. */
  readonly caCert: string;
  /** The serving certificate (`tls.crt`, for 127.0.0.1 and localhost) and its key (`tls.key`). */
  readonly serving: { readonly cert: string; readonly key: string };
}

/**
 * A CA of its own for the operator's webhook server under test, and its serving certificate for `host`,
 * written as `tls.crt` and `tls.key` in `certDir` (the file names the runtime's `certPath` expects).
 */
export async function generateWebhookPki(dir: string, certDir: string, host: string): Promise<WebhookPki> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const caKey = await newKey(dir, 'webhook-ca');
  const caCert = join(dir, 'webhook-ca.crt');
  await openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      caKey,
      '-subj',
      '/CN=opkit-envtest-webhook-ca',
      '-days',
      '30',
      '-out',
      caCert,
    ],
    dir,
  );
  const sans = /^[\d.]+$|:/.test(host) ? [`IP:${host}`, 'DNS:localhost'] : [`DNS:${host}`, 'IP:127.0.0.1'];
  const serving = await signedCert(
    dir,
    'webhook-serving',
    '/CN=opkit-envtest-webhook',
    serverExtensions(sans),
    {
      cert: caCert,
      key: caKey,
    },
  );
  const tls = { cert: join(certDir, 'tls.crt'), key: join(certDir, 'tls.key') };
  writeFileSync(tls.cert, readFileSync(serving.cert));
  writeFileSync(tls.key, readFileSync(serving.key), { mode: 0o600 });
  return { caCert: readFileSync(caCert, 'utf8'), serving: tls };
}
