import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The account an image runs as: numeric ids, so Kubernetes can check `runAsNonRoot` without the image. */
export interface ImageUser {
  readonly uid: number;
  readonly gid: number;
  /** Name in `/etc/passwd` and `/etc/group`; images without a root filesystem (pause) need none. */
  readonly name?: string;
  /** Home directory in `/etc/passwd`; default `/nonexistent`, as Debian's system users. */
  readonly home?: string;
}

/** `/etc/passwd` and `/etc/group` contents. */
export interface AccountFiles {
  readonly passwd: string;
  readonly group: string;
}

const NOBODY = 65534;

/**
 * Minimal account databases: root, the image's user when it has a name, and nobody/nogroup (65534, Debian's
 * names). Written by us rather than taken from `base-passwd`, whose maintainer scripts the extract variant
 * never runs; there is no `nsswitch.conf`, so glibc reads these files directly.
 *
 * @throws Error for a user whose ids or name clash with root or nobody, or a name unusable in these files.
 */
export function accountFiles(user?: ImageUser): AccountFiles {
  const passwd = ['root:x:0:0:root:/root:/bin/sh'];
  const group = ['root:x:0:'];
  if (user?.name !== undefined && user.uid !== 0) {
    if (!/^[a-z_][a-z0-9_-]*$/.test(user.name) || user.name === 'root' || user.name === 'nobody') {
      throw new Error(`image user name ${JSON.stringify(user.name)} is not usable in /etc/passwd`);
    }
    for (const id of [user.uid, user.gid]) {
      if (!Number.isSafeInteger(id) || id <= 0 || id === NOBODY || id > 0xfffffffe) {
        throw new Error(`image user ${user.name} has an unusable id ${id}`);
      }
    }
    const home = user.home ?? '/nonexistent';
    passwd.push(`${user.name}:x:${user.uid}:${user.gid}:${user.name}:${home}:/usr/sbin/nologin`);
    group.push(`${user.name}:x:${user.gid}:`);
  }
  passwd.push(`nobody:x:${NOBODY}:${NOBODY}:nobody:/nonexistent:/usr/sbin/nologin`);
  group.push(`nogroup:x:${NOBODY}:`);
  return { passwd: `${passwd.join('\n')}\n`, group: `${group.join('\n')}\n` };
}

/** Writes {@link accountFiles} to `<root>/etc/passwd` and `<root>/etc/group` (mode 0644). */
export async function writeAccountFiles(root: string, user?: ImageUser): Promise<void> {
  const files = accountFiles(user);
  await mkdir(join(root, 'etc'), { recursive: true });
  for (const [name, content] of [
    ['passwd', files.passwd],
    ['group', files.group],
  ] as const) {
    await writeFile(join(root, 'etc', name), content);
    await chmod(join(root, 'etc', name), 0o644);
  }
}
