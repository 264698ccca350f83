// `sudo npx opkit-cluster up` runs as root, whose cluster directory (0700) and kubeconfig (0600) the user who
// typed it cannot read; the later steps (kubectl, opkit deploy) run as that user.
import { chownSync, copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The user behind sudo: SUDO_UID and SUDO_GID, when this process is root and both are numbers. */
export function invokingUser(
  env: NodeJS.ProcessEnv,
  uid: number | undefined = process.getuid?.(),
): { readonly uid: number; readonly gid: number } | undefined {
  if (uid !== 0) return undefined;
  const parse = (value: string | undefined) =>
    value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
  const sudoUid = parse(env.SUDO_UID);
  const sudoGid = parse(env.SUDO_GID);
  if (sudoUid === undefined || sudoGid === undefined || sudoUid === 0) return undefined;
  return { uid: sudoUid, gid: sudoGid };
}

/**
 * Copies the kubeconfig into a new directory of `user`'s under `parent` (0700; the copy 0600, both theirs) and
 * returns the copy's path. Only the copy is theirs: the cluster's PKI keys stay root's, and the copy holds no
 * more than the admin kubeconfig root already prints.
 */
export function kubeconfigForUser(
  kubeconfig: string,
  user: { readonly uid: number; readonly gid: number },
  parent: string = tmpdir(),
): { readonly dir: string; readonly path: string } {
  const dir = mkdtempSync(join(parent, 'opkit-kubeconfig-'));
  const path = join(dir, 'kubeconfig');
  copyFileSync(kubeconfig, path);
  chownSync(path, user.uid, user.gid);
  chownSync(dir, user.uid, user.gid);
  return { dir, path };
}
