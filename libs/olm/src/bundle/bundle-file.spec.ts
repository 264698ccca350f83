import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BundleFileRefusedError,
  MAX_BUNDLE_FILE_BYTES,
  readBundleFile,
  readBundleText,
} from './bundle-file.js';

const dir = mkdtempSync(join(tmpdir(), 'bundle-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readBundleFile', () => {
  it('reads a file within the limit whole', () => {
    const file = join(dir, 'csv.yaml');
    writeFileSync(file, 'kind: ClusterServiceVersion\n');
    expect(readBundleText(file)).toBe('kind: ClusterServiceVersion\n');
    expect(readBundleFile(file, 28).byteLength).toBe(28);
  });

  it('refuses a file past the limit by its size, naming it', () => {
    const file = join(dir, 'huge.yaml');
    writeFileSync(file, '');
    truncateSync(file, MAX_BUNDLE_FILE_BYTES + 1);
    expect(() => readBundleFile(file)).toThrow(
      `read ${file}: file of ${MAX_BUNDLE_FILE_BYTES + 1} bytes exceeds the limit of ${MAX_BUNDLE_FILE_BYTES} bytes`,
    );
  });

  it('refuses a device before reading it, with the file named', () => {
    const error = (() => {
      try {
        readBundleFile('/dev/zero', 1000);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(BundleFileRefusedError);
    expect((error as BundleFileRefusedError).message).toBe(
      'read /dev/zero: not a regular file but a character device',
    );
  });
});
