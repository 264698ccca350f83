import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_PACKAGE_LABEL, bundleImage, bundleImageFromFiles } from './bundle-image.js';

const scratch = mkdtempSync(join(tmpdir(), 'oci-bundle-image-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const labels = { [BUNDLE_PACKAGE_LABEL]: 'demo' };

function writeFiles(dir: string, files: ReadonlyMap<string, string>): void {
  for (const [path, content] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

describe('bundleImageFromFiles', () => {
  it('is the image bundleImage builds from a directory holding the same files', async () => {
    for (const scorecard of [false, true]) {
      const files = new Map([
        ['metadata/annotations.yaml', 'annotations:\n  a: b\n'],
        ['manifests/demo.clusterserviceversion.yaml', 'kind: ClusterServiceVersion\n'],
        ['manifests/demo.crd.yaml', 'kind: CustomResourceDefinition\n'],
        ...(scorecard ? ([['tests/scorecard/config.yaml', 'kind: Configuration\n']] as const) : []),
      ]);
      const dir = join(scratch, `bundle-${scorecard}`);
      writeFiles(dir, files);
      writeFileSync(join(dir, 'bundle.Dockerfile'), 'FROM scratch\n');
      const fromMemory = await bundleImageFromFiles(dir, files, labels);
      expect(fromMemory.digest).toBe((await bundleImage(dir, labels)).digest);
    }
  });

  it('refuses a bundle without manifests as bundleImage does', async () => {
    await expect(
      bundleImageFromFiles('b', new Map([['metadata/annotations.yaml', '']]), labels),
    ).rejects.toThrow('bundle directory b has no manifests/ directory');
  });
});
