import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rebuildCacheCommand, type ServeOptions, serveCatalog } from './serve.js';

const corpus = join(import.meta.dirname, '..', '..', '..', 'libs', 'olm', 'test', 'catalog', 'corpus');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-serve-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const serving: ServeOptions = {
  port: 0,
  host: '127.0.0.1',
  inlineBundles: false,
  bundlesDir: 'bundles',
  plainHttp: false,
};

describe('rebuildCacheCommand', () => {
  it('names the source, the serving options and the cache directory, quoted for a shell where needed', () => {
    expect(rebuildCacheCommand('/configs', serving, '/tmp/cache')).toBe(
      'opkit catalog serve /configs --cache-dir /tmp/cache --cache-only',
    );
    expect(
      rebuildCacheCommand('my catalog', { ...serving, inlineBundles: true, bundlesDir: "o'bundles" }, '/c'),
    ).toBe(
      `opkit catalog serve 'my catalog' --inline-bundles --bundles-dir 'o'\\''bundles' --cache-dir /c --cache-only`,
    );
  });
});

describe('serveCatalog', () => {
  it.runIf(process.platform === 'linux')('closes the serve cache file when it stops', async () => {
    const dir = join(scratch, 'catalog');
    cpSync(join(corpus, 'valid-bundle-object-without-image'), dir, { recursive: true });
    const cacheDir = join(scratch, 'cache');
    const lines: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      await serveCatalog(dir, { ...serving, cache: { dir: cacheDir, only: true, enforceIntegrity: false } });
      const openFiles = () => readdirSync('/proc/self/fd').length;
      const before = openFiles();
      const signalsBefore = process.listeners('SIGTERM');
      const served = serveCatalog(dir, {
        ...serving,
        cache: { dir: cacheDir, only: false, enforceIntegrity: true },
      });
      await vi.waitFor(() => expect(lines.join('')).toContain('listening on'), { timeout: 10_000 });
      expect(lines.join('')).toContain(`serve cache ${cacheDir}: used`);
      // The command's own SIGTERM handler, called as the signal would call it.
      const stop = process.listeners('SIGTERM').find((l) => !signalsBefore.includes(l));
      stop?.('SIGTERM');
      await served;
      expect(lines.join('')).toContain('stopped');
      expect(openFiles()).toBe(before);
    } finally {
      stdout.mockRestore();
    }
  });
});
