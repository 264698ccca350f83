import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invokingUser, kubeconfigForUser } from './user-kubeconfig.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'user-kubeconfig-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('invokingUser', () => {
  it('is the user behind sudo, only when running as root', () => {
    expect(invokingUser({ SUDO_UID: '1000', SUDO_GID: '1001' }, 0)).toEqual({ uid: 1000, gid: 1001 });
    expect(invokingUser({ SUDO_UID: '1000', SUDO_GID: '1001' }, 1000)).toBeUndefined();
    expect(invokingUser({}, 0)).toBeUndefined();
    expect(invokingUser({ SUDO_UID: '0', SUDO_GID: '0' }, 0)).toBeUndefined();
    expect(invokingUser({ SUDO_UID: 'x', SUDO_GID: '1' }, 0)).toBeUndefined();
  });
});

describe('kubeconfigForUser', () => {
  it("puts a copy in a fresh directory of the user's, 0700, the copy 0600, and leaves the original alone", () => {
    writeFileSync(join(dir, 'admin.kubeconfig'), 'apiVersion: v1\n', { mode: 0o600 });
    const user = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const copy = kubeconfigForUser(join(dir, 'admin.kubeconfig'), user, dir);
    expect(dirname(copy.path)).toBe(copy.dir);
    expect(dirname(copy.dir)).toBe(dir);
    expect(readFileSync(copy.path, 'utf8')).toBe('apiVersion: v1\n');
    const [dirStat, fileStat] = [statSync(copy.dir), statSync(copy.path)];
    expect(dirStat.mode & 0o777).toBe(0o700);
    expect(fileStat.mode & 0o777).toBe(0o600);
    expect([fileStat.uid, fileStat.gid, dirStat.uid, dirStat.gid]).toEqual([
      user.uid,
      user.gid,
      user.uid,
      user.gid,
    ]);
  });

  it.skipIf(process.getuid?.() !== 0)('as root, hands both to the user behind sudo', () => {
    writeFileSync(join(dir, 'admin.kubeconfig'), 'apiVersion: v1\n', { mode: 0o600 });
    const copy = kubeconfigForUser(join(dir, 'admin.kubeconfig'), { uid: 65534, gid: 65534 }, dir);
    expect(statSync(copy.path).uid).toBe(65534);
    expect(statSync(copy.dir).uid).toBe(65534);
    expect(statSync(join(dir, 'admin.kubeconfig')).uid).toBe(0);
  });
});
