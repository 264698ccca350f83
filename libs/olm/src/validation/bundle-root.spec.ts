import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleFileRefusedError } from '../bundle/bundle-file.js';
import { readScorecardConfig, ScorecardConfigError } from '../scorecard/config.js';
import { validateBundleDir } from './validate-bundle-dir.js';

// Readers of a bundle directory stay in it: a link to a directory beside the bundle (or to `/`) is not walked,
// and an annotation naming `../../..` is refused; a `manifests` that is itself a link is followed, as opm does.
const SOURCE = join(import.meta.dirname, '..', '..', 'test', 'scorecard', 'memcached-operator-0.1.0');
const outer = mkdtempSync(join(tmpdir(), 'opkit-bundle-root-'));
const outside = join(outer, 'outside');
afterAll(() => rmSync(outer, { recursive: true, force: true }));

const SENTINEL_CSV = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: host-sentinel.v9.9.9
spec:
  version: 9.9.9
`;
const SENTINEL_ANNOTATIONS = `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: host-sentinel
  operators.operatorframework.io.bundle.channels.v1: alpha
`;
const SCORECARD_CONFIG = `apiVersion: scorecard.operatorframework.io/v1alpha3
kind: Configuration
metadata:
  name: host-sentinel
stages: []
`;

/** A copy of an ordinary bundle, named `name`, with `change` applied. */
function bundle(name: string, change: (dir: string) => void = () => {}): string {
  const dir = join(outer, name);
  cpSync(SOURCE, dir, { recursive: true });
  change(dir);
  return dir;
}

beforeAll(() => {
  mkdirSync(outside);
  writeFileSync(join(outside, 'host.clusterserviceversion.yaml'), SENTINEL_CSV);
  writeFileSync(join(outside, 'annotations.yaml'), SENTINEL_ANNOTATIONS);
  writeFileSync(join(outside, 'config.yaml'), SCORECARD_CONFIG);
});

describe('bundle readers stay in the bundle', () => {
  it('validates an ordinary bundle, and one whose manifests directory is itself a link', () => {
    expect(validateBundleDir(bundle('plain')).fatal).toBeUndefined();
    const linked = bundle('linked-manifests', (dir) => {
      cpSync(join(dir, 'manifests'), join(outer, 'shared-manifests'), { recursive: true });
      rmSync(join(dir, 'manifests'), { recursive: true });
      symlinkSync(join(outer, 'shared-manifests'), join(dir, 'manifests'));
    });
    const report = validateBundleDir(linked);
    expect(report.fatal).toBeUndefined();
    expect(JSON.stringify(report)).not.toContain('host-sentinel');
  });

  it('does not walk manifests/x linked to a directory outside', () => {
    const dir = bundle('manifests-link-out', (d) => symlinkSync('../../outside', join(d, 'manifests', 'x')));
    const report = validateBundleDir(dir);
    expect(report.passed).toBe(false);
    expect(report.fatal).toMatch(/manifests\/x: a symlink on its path leads out of the directory/);
    expect(JSON.stringify(report)).not.toContain('host-sentinel');
  });

  it('does not look for annotations through a link out of the bundle', () => {
    const dir = bundle('metadata-search-out', (d) => {
      rmSync(join(d, 'metadata'), { recursive: true });
      symlinkSync('../outside', join(d, 'a-link'));
    });
    expect(() => validateBundleDir(dir)).toThrow(BundleFileRefusedError);
  });

  it('refuses a manifests annotation that leads out of the bundle', () => {
    const dir = bundle('manifests-annotation-out', (d) =>
      writeFileSync(
        join(d, 'metadata', 'annotations.yaml'),
        SENTINEL_ANNOTATIONS.replace('manifests.v1: manifests/', 'manifests.v1: ../outside/'),
      ),
    );
    const report = validateBundleDir(dir);
    expect(report.fatal).toMatch(/manifests\.v1 "\.\.\/outside\/" leads out of the bundle directory/);
    expect(JSON.stringify(report.results)).not.toContain('host-sentinel');
  });

  it.each(['../../..', '../outside/'])('refuses a scorecard config directory of %s', (configDir) => {
    const dir = bundle(`scorecard-${configDir.replaceAll(/\W+/g, '-')}`, (d) =>
      writeFileSync(
        join(d, 'metadata', 'annotations.yaml'),
        `${SENTINEL_ANNOTATIONS}  operators.operatorframework.io.test.config.v1: ${configDir}\n`,
      ),
    );
    expect(() => readScorecardConfig(dir)).toThrow(ScorecardConfigError);
    expect(() => readScorecardConfig(dir)).toThrow(
      `${dir}: the scorecard config directory "${configDir}" (operators.operatorframework.io.test.config.v1) leads out of the bundle`,
    );
  });

  it('refuses a scorecard config read through a link out of the bundle', () => {
    const linkedDir = bundle('scorecard-dir-link-out', (d) => {
      mkdirSync(join(d, 'tests'));
      symlinkSync('../../outside', join(d, 'tests', 'scorecard'));
    });
    expect(() => readScorecardConfig(linkedDir)).toThrow(/"tests\/scorecard\/" .* leads out of the bundle$/);
    const linkedFile = bundle('scorecard-file-link-out', (d) => {
      mkdirSync(join(d, 'tests', 'scorecard'), { recursive: true });
      symlinkSync('../../../outside/config.yaml', join(d, 'tests', 'scorecard', 'config.yaml'));
    });
    expect(() => readScorecardConfig(linkedFile)).toThrow(BundleFileRefusedError);
  });
});
