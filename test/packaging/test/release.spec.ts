// Releasing the publishable packages with Nx release: a version plan names the packages a change bumps and
// says what changed; `nx release` bumps each package (and the packages that depend on it) and writes the
// entry into its CHANGELOG.md. Run in a copy of the workspace, as a maintainer runs it in a checkout.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const exec = promisify(execFile);

let copy: string;

function version(project: string): string {
  return (JSON.parse(readFileSync(join(copy, project, 'package.json'), 'utf8')) as { version: string })
    .version;
}

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'opkit-release-'));
  // The files of the checkout (tracked, and new ones not ignored), in a repository of their own.
  const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file), { verbatimSymlinks: true });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  const git = (...args: string[]) => exec('git', args, { cwd: copy });
  await git('init', '-q');
  await git('add', '-A');
  await git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'workspace');
}, 120_000);

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('nx release with version plans', () => {
  it('bumps the planned packages and their dependents and writes each CHANGELOG.md', async () => {
    const before = {
      oci: version('libs/oci'),
      opkit: version('tools/opkit'),
      olm: version('libs/olm'),
      runtime: version('libs/controller-runtime'),
    };
    // Only this test's plan: the checkout's pending plans are the next real release's.
    rmSync(join(copy, '.nx', 'version-plans'), { recursive: true, force: true });
    mkdirSync(join(copy, '.nx', 'version-plans'), { recursive: true });
    writeFileSync(
      join(copy, '.nx', 'version-plans', 'proxies.md'),
      '---\noci: patch\n---\n\nRegistry clients honour HTTPS_PROXY and NO_PROXY.\n',
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NX_DAEMON: 'false',
      NX_NO_CLOUD: 'true',
      NX_TUI: 'false',
    };
    await exec(join(copy, 'node_modules', '.bin', 'nx'), ['release', '--skip-publish'], {
      cwd: copy,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });

    const bumped = (v: string) => v.replace(/\d+$/, (patch) => String(Number(patch) + 1));
    expect(version('libs/oci')).toBe(bumped(before.oci));
    // The CLI and @opkit/olm depend on @opkit/oci, so they are released with it. So is the runtime: Nx counts
    // development dependencies too, and its tests' kit (@opkit/test-cluster, released since it is published)
    // depends on @opkit/oci.
    expect(version('tools/opkit')).toBe(bumped(before.opkit));
    expect(version('libs/olm')).toBe(bumped(before.olm));
    expect(version('libs/controller-runtime')).toBe(bumped(before.runtime));
    const changelog = readFileSync(join(copy, 'libs/oci/CHANGELOG.md'), 'utf8');
    expect(changelog).toContain(`## ${bumped(before.oci)} (`);
    expect(changelog).toContain('Registry clients honour HTTPS_PROXY and NO_PROXY.');
    expect(readFileSync(join(copy, 'tools/opkit/CHANGELOG.md'), 'utf8')).toContain(
      `Updated oci to ${bumped(before.oci)}`,
    );
  }, 180_000);
});
