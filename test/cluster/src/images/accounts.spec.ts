import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountFiles, writeAccountFiles } from './accounts.js';

describe('accountFiles', () => {
  it('lists root, the image user with numeric ids, and nobody', () => {
    const files = accountFiles({ uid: 11211, gid: 11211, name: 'memcache' });
    expect(files.passwd).toBe(
      [
        'root:x:0:0:root:/root:/bin/sh',
        'memcache:x:11211:11211:memcache:/nonexistent:/usr/sbin/nologin',
        'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
        '',
      ].join('\n'),
    );
    expect(files.group).toBe(['root:x:0:', 'memcache:x:11211:', 'nogroup:x:65534:', ''].join('\n'));
  });

  it('uses the given home directory', () => {
    expect(accountFiles({ uid: 999, gid: 999, name: 'redis', home: '/data' }).passwd).toContain(
      'redis:x:999:999:redis:/data:/usr/sbin/nologin\n',
    );
  });

  it('has only root and nobody for root images and unnamed users', () => {
    for (const user of [undefined, { uid: 0, gid: 0, name: 'admin' }, { uid: 65535, gid: 65535 }]) {
      const files = accountFiles(user);
      expect(files.passwd.trim().split('\n')).toHaveLength(2);
      expect(files.group.trim().split('\n')).toEqual(['root:x:0:', 'nogroup:x:65534:']);
    }
  });

  it('refuses names and ids that clash or do not fit the files', () => {
    expect(() => accountFiles({ uid: 1, gid: 1, name: 'root' })).toThrow(/not usable/);
    expect(() => accountFiles({ uid: 1, gid: 1, name: 'a:b' })).toThrow(/not usable/);
    expect(() => accountFiles({ uid: 65534, gid: 1, name: 'x' })).toThrow(/unusable id/);
    expect(() => accountFiles({ uid: 10, gid: -1, name: 'x' })).toThrow(/unusable id/);
  });

  it('writes /etc/passwd and /etc/group with mode 0644', async () => {
    const root = await mkdtemp(join(tmpdir(), 'accounts-'));
    try {
      await writeAccountFiles(root, { uid: 65532, gid: 65532, name: 'nonroot', home: '/home/nonroot' });
      expect(await readFile(join(root, 'etc', 'passwd'), 'utf8')).toContain('nonroot:x:65532:65532:');
      expect(await readFile(join(root, 'etc', 'group'), 'utf8')).toContain('nonroot:x:65532:\n');
      expect((await stat(join(root, 'etc', 'passwd'))).mode & 0o7777).toBe(0o644);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
