import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestEnvironment } from '../../src/envtest/index.js';
import { ManagedProcess } from '../../src/process/managed-process.js';

// The webhook PKI fails while etcd and kube-apiserver are still starting.
vi.mock('../../src/control-plane/pki.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/control-plane/pki.js')>()),
  generateWebhookPki: async () => {
    throw new Error('injected: no webhook PKI');
  },
}));

const fixtures = join(import.meta.dirname, 'fixtures');

describe('a failed start of the test environment', () => {
  const previousTmpdir = process.env.TMPDIR;
  afterEach(() => {
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
  });

  it('stops every process it started and removes its temp dir', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'opkit-envtest-failed-'));
    process.env.TMPDIR = scratch;
    const started: ManagedProcess[] = [];
    const originalStart = ManagedProcess.prototype.start;
    const start = vi.spyOn(ManagedProcess.prototype, 'start').mockImplementation(function (
      this: ManagedProcess,
    ) {
      started.push(this);
      return originalStart.call(this);
    });
    try {
      await expect(
        startTestEnvironment({
          crdDirectoryPaths: [join(fixtures, 'config/crd/bases')],
          webhookConfigPaths: [],
          useExistingCluster: false,
        }),
      ).rejects.toThrow('injected: no webhook PKI');
      // Nothing starts after the failure was reported, and what had started is gone with the temp dir.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(started.map((proc) => proc.spec.name)).toEqual(['etcd', 'kube-apiserver']);
      expect(started.filter((proc) => proc.running)).toEqual([]);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      start.mockRestore();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
