import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeConfig } from '@opkit/controller-runtime/client';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeconfigNamingFiles } from './kubeconfig-files.js';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n';
const b64 = (text: string) => Buffer.from(text).toString('base64');

const ADMIN = `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: ${b64(CA)}
users:
- name: admin
  user:
    client-certificate-data: ${b64(CERT)}
    client-key-data: ${b64(KEY)}
contexts:
- name: local
  context: { cluster: local, user: admin }
current-context: local
`;

describe('kubeconfigNamingFiles', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('gives the same connection with its CA, certificate and key as files beside it, readable by the owner only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-files-'));
    dirs.push(dir);
    const admin = join(dir, 'admin.kubeconfig');
    writeFileSync(admin, ADMIN);

    const path = kubeconfigNamingFiles(admin, dir);

    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('-data');
    expect(text).toContain(join(dir, 'ca.crt'));
    for (const file of [path, ...['ca.crt', 'client.crt', 'client.key'].map((f) => join(dir, f))]) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    const config = loadKubeConfig(path);
    const options: RequestOptions = {};
    await config.applyToHTTPSOptions(options);
    expect(config.getCurrentCluster().server).toBe('https://127.0.0.1:6443');
    expect(String(options.ca)).toBe(CA);
    expect(String(options.cert)).toBe(CERT);
    expect(String(options.key)).toBe(KEY);
  });
});
