import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/**
 * The admin kubeconfig rewritten to name its CA, certificate and key as files in `dir`, as a pod's service
 * account names its CA and token. The operators then parse a few short lines at start-up, as in a pod, instead
 * of kilobytes of base64 (which had V8 optimize yaml's scanners in one start of three, 5 MiB of compiler pages).
 */
export function kubeconfigNamingFiles(adminKubeconfig: string, dir: string): string {
  const config = parse(readFileSync(adminKubeconfig, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  const toFile = (entry: Record<string, string>, key: string, name: string) => {
    const data = entry[`${key}-data`];
    if (data === undefined) return;
    writeFileSync(join(dir, name), Buffer.from(data, 'base64'), { mode: 0o600 });
    delete entry[`${key}-data`];
    entry[key] = join(dir, name);
  };
  for (const { cluster } of config.clusters) toFile(cluster, 'certificate-authority', 'ca.crt');
  for (const { user } of config.users) {
    toFile(user, 'client-certificate', 'client.crt');
    toFile(user, 'client-key', 'client.key');
  }
  const path = join(dir, 'operator.kubeconfig');
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}
