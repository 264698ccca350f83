import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releasedData } from '@opkit/test-cluster';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createProgram } from '../../program.js';

const scratch = mkdtempSync(join(tmpdir(), 'opkit-upgrade-paths-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

/** Runs `opkit <args>` in this process; what it wrote to stdout and the exit code it set. */
async function opkit(...args: string[]): Promise<{ stdout: string; exitCode: number }> {
  const out: string[] = [];
  process.exitCode = undefined;
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  try {
    await createProgram()
      .exitOverride()
      .parseAsync(['node', 'opkit', ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  return { stdout: out.join(''), exitCode: Number(process.exitCode ?? 0) };
}

/** A one-package catalog directory `name` whose channel `stable` lists the versions, each replacing the one before. */
function catalogDir(name: string, versions: string[]): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const blobs = [
    { schema: 'olm.package', name: 'op', defaultChannel: 'stable' },
    {
      schema: 'olm.channel',
      package: 'op',
      name: 'stable',
      entries: versions.map((v, i) => ({
        name: `op.v${v}`,
        ...(i > 0 ? { replaces: `op.v${versions[i - 1]}` } : {}),
      })),
    },
    ...versions.map((v) => ({
      schema: 'olm.bundle',
      name: `op.v${v}`,
      package: 'op',
      image: `example.com/op-bundle:v${v}`,
      properties: [{ type: 'olm.package', value: { packageName: 'op', version: v } }],
    })),
  ];
  writeFileSync(join(dir, 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n'));
  return dir;
}

describe('opkit catalog upgrade-paths', { timeout: 60_000 }, () => {
  it("takes every installed version of this repository's catalog to its head under v0 and v1", async () => {
    const { stdout, exitCode } = await opkit(
      'catalog',
      'upgrade-paths',
      releasedData.catalogConfigs,
      '-o',
      'json',
    );
    expect(exitCode).toBe(0);
    const report = JSON.parse(stdout) as {
      paths: { package: string; rules: string; channels: { paths: { outcome: string }[] }[] }[];
    };
    expect(report.paths.map((p) => `${p.package} ${p.rules}`)).toEqual([
      'memcached-operator v0',
      'redis-operator v0',
      'memcached-operator v1',
      'redis-operator v1',
    ]);
    const outcomes = report.paths.flatMap((p) => p.channels.flatMap((c) => c.paths.map((x) => x.outcome)));
    expect(new Set(outcomes)).toEqual(new Set(['head']));
  });

  it('reports what a change breaks, under the rules asked for, and exits 1 on an error finding', async () => {
    const previous = catalogDir('previous', ['1.0.0', '1.0.1']);
    const next = catalogDir('next', ['1.0.1', '1.0.2']);
    const broken = await opkit('catalog', 'upgrade-paths', next, '--previous', previous, '--olm', 'v1');
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).not.toContain('OLM v0');
    expect(broken.stdout).toContain(
      'error upgrade/stranded: op channel "stable": 1.0.0 (op.v1.0.0, no longer in the catalog) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v1)\n',
    );
    const fine = await opkit('catalog', 'upgrade-paths', next, '--previous', catalogDir('older', ['1.0.1']));
    expect(fine).toEqual({ stdout: expect.not.stringContaining('upgrade/'), exitCode: 0 });
  });

  it('refuses a package or channel that neither catalog has, and leaves out packages without the channel', async () => {
    const configs = releasedData.catalogConfigs;
    await expect(opkit('catalog', 'upgrade-paths', configs, '--channel', 'nope')).rejects.toThrow(
      `--channel nope: no such channel in ${configs}`,
    );
    await expect(opkit('catalog', 'upgrade-paths', configs, '--package', 'nope')).rejects.toThrow(
      `--package nope: no such package in ${configs}`,
    );
    const alpha = await opkit('catalog', 'upgrade-paths', configs, '--channel', 'alpha', '--olm', 'v0');
    expect(alpha.stdout.split('\n').filter((line) => !line.startsWith(' '))).toEqual([
      'memcached-operator (OLM v0)',
      '',
    ]);
  });
});
