import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FileWithinRootReader,
  readFileWithinRoot,
  resolveWithinRoot,
  WithinRootError,
} from './within-root.js';

const outer = mkdtempSync(join(tmpdir(), 'opkit-within-root-'));
const root = join(outer, 'root');
afterAll(() => rmSync(outer, { recursive: true, force: true }));

beforeAll(() => {
  mkdirSync(join(root, 'configs', 'demo'), { recursive: true });
  writeFileSync(join(outer, 'secret.yaml'), 'host\n');
  writeFileSync(join(root, 'configs', 'demo', 'catalog.yaml'), 'inside\n');
  writeFileSync(join(root, 'configs', 'long.yaml'), 'x'.repeat(100_000));
  writeFileSync(join(root, 'configs', 'short.yaml'), 'short\n');
  // Each link stays inside on paper; on disk `up1` is the root's parent.
  symlinkSync('..', join(root, 'configs', 'up0'));
  symlinkSync('up0/..', join(root, 'configs', 'up1'));
  symlinkSync('up1/secret.yaml', join(root, 'configs', 'secret.yaml'));
  symlinkSync('demo/catalog.yaml', join(root, 'configs', 'alias.yaml'));
  symlinkSync(join(root, 'configs', 'demo'), join(root, 'absolute-inside'));
  symlinkSync('/dev/zero', join(root, 'configs', 'zero.json'));
  symlinkSync('loop-b', join(root, 'loop-a'));
  symlinkSync('loop-a', join(root, 'loop-b'));
  execFileSync('mkfifo', [join(root, 'configs', 'fifo.yaml')]);
});

const refusal = (read: () => unknown): WithinRootError => {
  try {
    read();
  } catch (error) {
    if (error instanceof WithinRootError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('resolveWithinRoot', () => {
  it('follows links as the kernel does, and says when a chain leads out', () => {
    expect(resolveWithinRoot(root, 'configs/up0')).toBe('');
    expect(resolveWithinRoot(root, 'configs/up1')).toBeUndefined();
    expect(resolveWithinRoot(root, 'configs/secret.yaml')).toBeUndefined();
    expect(resolveWithinRoot(root, 'configs/secret.yaml', { followLast: false })).toBe('configs/secret.yaml');
    expect(resolveWithinRoot(root, 'configs/alias.yaml')).toBe('configs/demo/catalog.yaml');
    expect(resolveWithinRoot(root, 'absolute-inside/catalog.yaml')).toBe('configs/demo/catalog.yaml');
    expect(resolveWithinRoot(root, 'configs/up0/configs/demo/../../..')).toBeUndefined();
    expect(resolveWithinRoot(root, 'missing/x')).toBe('missing/x');
    expect(resolveWithinRoot(root, '/etc/passwd')).toBeUndefined();
    expect(refusal(() => resolveWithinRoot(root, 'loop-a')).code).toBe('LINK_LOOP');
  });

  it('keeps `..` and trailing slashes right while it builds the path', () => {
    expect(resolveWithinRoot(root, 'configs/demo/../demo/./catalog.yaml/')).toBe('configs/demo/catalog.yaml');
    expect(resolveWithinRoot(root, 'configs/alias.yaml/', { followLast: false })).toBe('configs/alias.yaml');
    expect(resolveWithinRoot(root, 'x/y/../../configs/up0/configs')).toBe('configs');
  });

  it('stops at PATH_MAX, in time linear in the path, however many components it has', () => {
    const started = performance.now();
    expect(refusal(() => resolveWithinRoot(root, 'a/'.repeat(500_000))).code).toBe('NAME_TOO_LONG');
    expect(resolveWithinRoot(root, `${'a/'.repeat(2047)}b`)).toBe(`${'a/'.repeat(2047)}b`);
    // `..` that climbs back down keeps the path short: many components, never too long.
    expect(resolveWithinRoot(root, `${'b/../'.repeat(5_000)}a`)).toBe('a');
    // The quadratic resolution took minutes on the first path alone.
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('readFileWithinRoot', () => {
  it('reads regular files, through links that stay inside', () => {
    expect(readFileWithinRoot(root, 'configs/alias.yaml', 100).toString()).toBe('inside\n');
  });

  it.each([
    ['a chain of links to a host file', 'configs/secret.yaml', 'OUTSIDE_ROOT'],
    ['a link to /dev/zero', 'configs/zero.json', 'OUTSIDE_ROOT'],
    ['a FIFO, without blocking', 'configs/fifo.yaml', 'NOT_REGULAR_FILE'],
    ['a directory', 'configs/demo', 'IS_DIRECTORY'],
    ['a file above the limit', 'configs/demo/catalog.yaml', 'TOO_LARGE'],
  ])('refuses %s', (_, path, code) => {
    expect(refusal(() => readFileWithinRoot(root, path, 3)).code).toBe(code);
  });

  it('refuses a device even when the root holds the link', () => {
    const error = refusal(() => readFileWithinRoot('/dev', 'zero', 1000));
    expect(error.reason).toBe('not a regular file but a character device');
  });
});

describe('reading a file that holds more than its size says', () => {
  // /proc files report a size of 0 and hold more: read as files that grew after they were opened.
  const status = (read: () => Buffer): string => read().toString();

  it('reads it to its end', () => {
    expect(status(() => readFileWithinRoot('/proc/self', 'status', 1 << 20))).toMatch(
      /^Name:.*\n[\s\S]*VmRSS/,
    );
    const reader = new FileWithinRootReader('/proc/self', 1 << 20);
    expect(status(() => reader.read('status'))).toMatch(/^Name:.*\n[\s\S]*VmRSS/);
  });

  it('stops one byte past the limit', () => {
    expect(refusal(() => readFileWithinRoot('/proc/self', 'status', 10)).reason).toBe(
      'file exceeds the limit of 10 bytes',
    );
  });
});

describe('FileWithinRootReader', () => {
  it('reads file after file into one buffer, each read overwriting the last', () => {
    const reader = new FileWithinRootReader(root, 200_000);
    const long = reader.read('configs/long.yaml');
    expect(long.toString()).toBe('x'.repeat(100_000));
    const short = reader.read('configs/short.yaml');
    expect(short.toString()).toBe('short\n');
    expect(short.buffer).toBe(long.buffer);
    expect(long.subarray(0, 6).toString()).toBe('short\n');
    expect(reader.read('configs/alias.yaml').toString()).toBe('inside\n');
  });

  it('streams a file in pieces, after its size, without a buffer of the whole', () => {
    const reader = new FileWithinRootReader(root, 200_000);
    const sizes: number[] = [];
    const pieces: string[] = [];
    const read = reader.stream(
      'configs/long.yaml',
      (size) => sizes.push(size),
      (piece) => pieces.push(piece.toString()),
    );
    expect(read).toBe(100_000);
    expect(sizes).toEqual([100_000]);
    expect(pieces.length).toBeGreaterThan(1);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(64 * 1024);
    expect(pieces.join('')).toBe('x'.repeat(100_000));
  });

  it('streams a file that holds more than its size says, and tells by what it returns', () => {
    const reader = new FileWithinRootReader('/proc/self', 1 << 20);
    let size = -1;
    let text = '';
    const read = reader.stream(
      'status',
      (n) => {
        size = n;
      },
      (piece) => {
        text += piece.toString();
      },
    );
    expect(size).toBe(0);
    expect(read).toBe(Buffer.byteLength(text));
    expect(text).toMatch(/^Name:/);
  });

  it('refuses what readFileWithinRoot refuses', () => {
    const reader = new FileWithinRootReader(root, 3);
    expect(refusal(() => reader.read('configs/secret.yaml')).code).toBe('OUTSIDE_ROOT');
    expect(refusal(() => reader.read('configs/demo/catalog.yaml')).code).toBe('TOO_LARGE');
    expect(
      refusal(() =>
        reader.stream(
          'configs/demo/catalog.yaml',
          () => {},
          () => {},
        ),
      ).code,
    ).toBe('TOO_LARGE');
    expect(
      refusal(() =>
        reader.stream(
          'configs/secret.yaml',
          () => {},
          () => {},
        ),
      ).code,
    ).toBe('OUTSIDE_ROOT');
  });

  it('frees its buffer on release: what it gave becomes empty, and it reads on', () => {
    const reader = new FileWithinRootReader(root, 200_000);
    const long = reader.read('configs/long.yaml');
    reader.release();
    expect(long.length).toBe(0);
    expect(reader.read('configs/short.yaml').toString()).toBe('short\n');
  });
});
