import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256Digest } from './digest.js';
import { LayerInvalidError } from './errors.js';
import { layerFromDirectory, layerFromEntries, readDirectoryEntries, sourceDateEpoch } from './layer.js';
import { listTar } from './testing/tar-list.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'oci-layer-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function writeTree(root: string, mtime: Date, mode: number): Promise<void> {
  await mkdir(join(root, 'manifests'), { recursive: true });
  await mkdir(join(root, 'metadata'), { recursive: true });
  await writeFile(join(root, 'manifests', 'b.yaml'), 'b: 2\n', { mode });
  await writeFile(join(root, 'manifests', 'a.yaml'), 'a: 1\n', { mode });
  await writeFile(join(root, 'metadata', 'annotations.yaml'), 'annotations: {}\n', { mode });
  for (const p of [
    'manifests/a.yaml',
    'manifests/b.yaml',
    'metadata/annotations.yaml',
    'manifests',
    'metadata',
  ]) {
    await utimes(join(root, p), mtime, mtime);
  }
}

describe('layerFromEntries', () => {
  it('is byte-for-byte reproducible and independent of input order', () => {
    const files = [
      { path: 'b/two.txt', content: 'two' },
      { path: '/a/one.txt', content: 'one' },
    ];
    const first = layerFromEntries(files);
    const second = layerFromEntries([...files].reverse());
    expect(second.gzDigest).toBe(first.gzDigest);
    expect(second.tarDigest).toBe(first.tarDigest);
    expect(Buffer.compare(Buffer.from(second.bytes), Buffer.from(first.bytes))).toBe(0);
  });

  it('reports digests and size of the tar and the gzip stream', () => {
    const layer = layerFromEntries([{ path: 'x', content: 'x' }]);
    expect(layer.size).toBe(layer.bytes.byteLength);
    expect(layer.gzDigest).toBe(sha256Digest(layer.bytes));
    expect(layer.tarDigest).toBe(sha256Digest(gunzipSync(layer.bytes)));
  });

  it('writes a gzip header without mtime or file name', () => {
    const { bytes } = layerFromEntries([{ path: 'x', content: 'x' }]);
    expect([...bytes.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  });

  it('lists sorted entries with implied parents, fixed owner, modes and mtime', async () => {
    const layer = layerFromEntries(
      [
        { path: 'manifests/csv.yaml', content: 'kind: ClusterServiceVersion\n' },
        { path: 'metadata/annotations.yaml', content: 'annotations: {}\n' },
        { path: 'bin/tool', content: '#!/bin/sh\n', mode: 0o755 },
        { type: 'symlink', path: 'manifests/link.yaml', target: 'csv.yaml' },
        { type: 'directory', path: 'empty' },
      ],
      { mtime: 1_700_000_000 },
    );
    const entries = await listTar(layer.bytes);
    expect(entries.map((e) => [e.path, e.type, e.mode?.toString(8)])).toEqual([
      ['bin/', 'Directory', '755'],
      ['bin/tool', 'File', '755'],
      ['empty/', 'Directory', '755'],
      ['manifests/', 'Directory', '755'],
      ['manifests/csv.yaml', 'File', '644'],
      ['manifests/link.yaml', 'SymbolicLink', '777'],
      ['metadata/', 'Directory', '755'],
      ['metadata/annotations.yaml', 'File', '644'],
    ]);
    expect(new Set(entries.map((e) => `${e.uid}:${e.gid}:${e.mtime}`))).toEqual(new Set(['0:0:1700000000']));
    expect(entries.find((e) => e.path === 'manifests/link.yaml')?.linkpath).toBe('csv.yaml');
    expect(entries.find((e) => e.path === 'manifests/csv.yaml')?.content).toBe(
      'kind: ClusterServiceVersion\n',
    );
  });

  it('places entries under a prefix', async () => {
    const layer = layerFromEntries([{ path: 'pkg/catalog.yaml', content: 'schema: olm.package\n' }], {
      prefix: '/configs/',
    });
    expect((await listTar(layer.bytes)).map((e) => e.path)).toEqual([
      'configs/',
      'configs/pkg/',
      'configs/pkg/catalog.yaml',
    ]);
  });

  it('uses the USTAR prefix field for long paths and PAX only when needed', async () => {
    const deep = `${'d'.repeat(90)}/${'e'.repeat(60)}/file.yaml`;
    const single = 'f'.repeat(120);
    const layer = layerFromEntries([
      { path: deep, content: 'deep' },
      { path: single, content: 'long' },
      { path: 'ünïcode.yaml', content: 'u' },
    ]);
    const entries = await listTar(layer.bytes);
    expect(entries.map((e) => e.path)).toContain(deep);
    expect(entries.map((e) => e.path)).toContain(single);
    expect(entries.map((e) => e.path)).toContain('ünïcode.yaml');
    const tar = gunzipSync(layer.bytes);
    const paxHeaders = [...tar.toString('latin1').matchAll(/PaxHeaders\/entry/g)].length;
    expect(paxHeaders).toBe(2);
  });

  it('pins the tar format and the zlib-free level-0 gzip stream (golden digests)', () => {
    const entries = [
      { path: 'manifests/x.yaml', content: 'kind: ClusterServiceVersion\n' },
      { path: 'big.txt', content: 'x'.repeat(70_000) },
    ];
    const stored = layerFromEntries(entries, { compressionLevel: 0, prefix: '/configs' });
    expect(stored.tarDigest).toBe('sha256:49766cc3148448939afde61074f358d6d39311cea28c3e38bbd3f8833c9464dc');
    expect(stored.gzDigest).toBe('sha256:2eb1fa110d32cf30d5681ae3488016695cee8533d7f70eb2c06a77802953ac76');
    // Two stored blocks (the tar is larger than 65535 bytes) that any gunzip accepts.
    expect(sha256Digest(gunzipSync(stored.bytes))).toBe(stored.tarDigest);
    const compressed = layerFromEntries(entries, { compressionLevel: 9, prefix: '/configs' });
    expect(compressed.tarDigest).toBe(stored.tarDigest);
    expect(compressed.size).toBeLessThan(stored.size / 10);
    expect(() => layerFromEntries(entries, { compressionLevel: 10 })).toThrow(
      /compression level must be 0-9/,
    );
  });

  it('changes the digest when the mtime option changes', () => {
    const files = [{ path: 'a', content: 'a' }];
    expect(layerFromEntries(files, { mtime: 1 }).tarDigest).not.toBe(layerFromEntries(files).tarDigest);
  });

  it('rejects escaping, empty and duplicate paths', () => {
    expect(() => layerFromEntries([{ path: '../x', content: '' }])).toThrow(LayerInvalidError);
    expect(() => layerFromEntries([{ path: '/', content: '' }])).toThrow(/path is empty/);
    expect(() =>
      layerFromEntries([
        { path: 'a', content: '1' },
        { path: './a', content: '2' },
      ]),
    ).toThrow(/duplicate path/);
    expect(() =>
      layerFromEntries([
        { path: 'a', content: '1' },
        { path: 'a/b', content: '2' },
      ]),
    ).toThrow(/both a file and a directory/);
    expect(() => layerFromEntries([], { mtime: -1 })).toThrow(
      expect.objectContaining({ code: 'OCI_LAYER_INVALID' }),
    );
  });
});

describe('layerFromDirectory', () => {
  it('gives the same digests for trees with different mtimes and permission bits on disk', async () => {
    const one = await tempDir();
    const two = await tempDir();
    await writeTree(one, new Date('2001-01-01T00:00:00Z'), 0o600);
    await writeTree(two, new Date('2024-06-30T12:34:56Z'), 0o664);
    const a = await layerFromDirectory(one);
    const b = await layerFromDirectory(two);
    expect(b.gzDigest).toBe(a.gzDigest);
    expect(b.tarDigest).toBe(a.tarDigest);
    const again = await layerFromDirectory(one);
    expect(Buffer.compare(Buffer.from(again.bytes), Buffer.from(a.bytes))).toBe(0);
  });

  it('matches the in-memory builder for the same files', async () => {
    const root = await tempDir();
    await writeTree(root, new Date(), 0o644);
    const fromDisk = await layerFromDirectory(root);
    const inMemory = layerFromEntries([
      { path: 'metadata/annotations.yaml', content: 'annotations: {}\n' },
      { path: 'manifests/a.yaml', content: 'a: 1\n' },
      { path: 'manifests/b.yaml', content: 'b: 2\n' },
    ]);
    expect(fromDisk.gzDigest).toBe(inMemory.gzDigest);
  });

  it('keeps empty directories and symlinks, and the execute bit only on request', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'empty'));
    await writeFile(join(root, 'run.sh'), 'echo\n', { mode: 0o700 });
    await symlink('run.sh', join(root, 'link'));
    const plain = await listTar((await layerFromDirectory(root)).bytes);
    expect(plain.map((e) => [e.path, e.type, e.mode?.toString(8)])).toEqual([
      ['empty/', 'Directory', '755'],
      ['link', 'SymbolicLink', '777'],
      ['run.sh', 'File', '644'],
    ]);
    const exec = await listTar((await layerFromDirectory(root, { preserveExecutable: true })).bytes);
    expect(exec.find((e) => e.path === 'run.sh')?.mode?.toString(8)).toBe('755');
  });

  it('keeps the permission bits found on disk on request, with owners still 0:0', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'tmp'));
    await mkdir(join(root, 'private'));
    await writeFile(join(root, 'private', 'key'), 'k\n');
    await writeFile(join(root, 'tool'), '#!/bin/sh\n');
    await writeFile(join(root, 'sgid'), 'x\n');
    await symlink('tool', join(root, 'link'));
    // chmod after creating: the umask would otherwise clear bits.
    await chmod(join(root, 'tmp'), 0o1777);
    await chmod(join(root, 'private'), 0o700);
    await chmod(join(root, 'private', 'key'), 0o600);
    await chmod(join(root, 'tool'), 0o755);
    await chmod(join(root, 'sgid'), 0o2711);
    const entries = await listTar((await layerFromDirectory(root, { preserveMode: true })).bytes);
    expect(entries.map((e) => [e.path, e.mode?.toString(8), e.uid, e.gid])).toEqual([
      ['link', '777', 0, 0],
      ['private/', '700', 0, 0],
      ['private/key', '600', 0, 0],
      ['sgid', '2711', 0, 0],
      ['tmp/', '1777', 0, 0],
      ['tool', '755', 0, 0],
    ]);
    // preserveMode wins over preserveExecutable; the default still normalizes.
    const both = await listTar(
      (await layerFromDirectory(root, { preserveMode: true, preserveExecutable: true })).bytes,
    );
    expect(both.find((e) => e.path === 'private/key')?.mode?.toString(8)).toBe('600');
    const plain = await listTar((await layerFromDirectory(root)).bytes);
    expect(plain.map((e) => [e.path, e.mode?.toString(8)])).toEqual([
      ['link', '777'],
      ['private/', '755'],
      ['private/key', '644'],
      ['sgid', '644'],
      ['tmp/', '755'],
      ['tool', '644'],
    ]);
  });

  it('rejects sockets and FIFOs by default and skips them on request', async () => {
    const root = await tempDir();
    await writeFile(join(root, 'file'), 'f\n');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, 'socket'), resolve));
    try {
      await expect(readDirectoryEntries(root)).rejects.toBeInstanceOf(LayerInvalidError);
      const entries = await readDirectoryEntries(root, { skipSpecialFiles: true });
      expect(entries.map((e) => e.path)).toEqual(['file']);
      const layer = await layerFromDirectory(root, { skipSpecialFiles: true });
      expect(layer.gzDigest).toBe(layerFromEntries([{ path: 'file', content: 'f\n' }]).gzDigest);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const fifoRoot = await tempDir();
    try {
      execFileSync('mkfifo', [join(fifoRoot, 'fifo')], { stdio: 'ignore' });
    } catch {
      return; // No mkfifo here: the socket showed the behaviour.
    }
    await expect(readDirectoryEntries(fifoRoot)).rejects.toBeInstanceOf(LayerInvalidError);
    expect(await readDirectoryEntries(fifoRoot, { skipSpecialFiles: true })).toEqual([]);
  });
});

describe('sourceDateEpoch', () => {
  it('parses whole seconds and ignores anything else', () => {
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '1700000000' })).toBe(1_700_000_000);
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: ' 42 ' })).toBe(42);
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '-1' })).toBeUndefined();
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '1.5' })).toBeUndefined();
    expect(sourceDateEpoch({})).toBeUndefined();
  });
});
