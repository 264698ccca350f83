import { execFileSync } from 'node:child_process';
import { createSign, randomUUID, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A minimal Docker token service (JWT RS256 with an `x5c` certificate) for distribution's `auth.token`. */
export interface TokenServer {
  readonly realm: string;
  readonly service: string;
  readonly issuer: string;
  /** PEM certificate the registry trusts (`rootcertbundle`). */
  readonly rootCertBundle: string;
  /** Query strings and basic users seen, for assertions. */
  readonly requests: Array<{ readonly scopes: string[]; readonly user?: string }>;
  stop(): Promise<void>;
}

/**
 * Generates a throw-away RSA key and self-signed certificate with `openssl` in `dir` and serves tokens for
 * `username`/`password` (basic auth on the token request), granting every requested repository action.
 */
export async function startTokenServer(
  dir: string,
  username: string,
  password: string,
): Promise<TokenServer> {
  const keyFile = join(dir, 'token-key.pem');
  const certFile = join(dir, 'token-cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=test-token-issuer'].concat([
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]),
    { stdio: 'ignore' },
  );
  const key = await readFile(keyFile, 'utf8');
  const certDer = new X509Certificate(await readFile(certFile)).raw.toString('base64');
  const service = 'test-registry';
  const issuer = 'test-issuer';
  const requests: Array<{ scopes: string[]; user?: string }> = [];
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://token');
    const scopes = url.searchParams.getAll('scope');
    const authorization = req.headers.authorization;
    const user = authorization?.startsWith('Basic ')
      ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')[0]
      : undefined;
    requests.push({ scopes, ...(user === undefined ? {} : { user }) });
    if (authorization !== expected) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"errors":[{"code":"UNAUTHORIZED","message":"bad credentials"}]}');
      return;
    }
    const access = scopes.map((scope) => {
      const [type, name, actions] = scope.split(':');
      return { type, name, actions: (actions ?? '').split(',') };
    });
    const now = Math.floor(Date.now() / 1000);
    const header = encode({ alg: 'RS256', typ: 'JWT', x5c: [certDer] });
    const claims = encode({
      iss: issuer,
      sub: username,
      aud: service,
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: randomUUID(),
      access,
    });
    const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key).toString('base64url');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: `${header}.${claims}.${signature}`, expires_in: 300 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    rootCertBundle: certFile,
    requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
