import { describe, expect, it } from 'vitest';
import { upgradePathChanges } from './changes.js';
import { upgradePaths } from './paths.js';
import { renderPaths } from './render.js';
import { opCatalog } from './spec-fixtures.js';

const model = opCatalog(
  {
    stable: [
      { name: 'op.v1.0.0' },
      { name: 'op.v1.0.1', replaces: 'op.v1.0.0' },
      { name: 'op.v1.0.2', replaces: 'op.v1.0.1', skipRange: '<1.0.2' },
    ],
  },
  { deprecated: ['op.v1.0.1'] },
);
const report = { paths: upgradePaths(model, 'v0') };

describe('renderPaths', () => {
  it('prints one line per installed bundle with the versions passed, the edges taken and where it ends', () => {
    expect(renderPaths(report, 'text')).toBe(
      [
        'op (OLM v0)',
        '  channel "stable" (heads: op.v1.0.2)',
        '    op.v1.0.0: 1.0.0 -> 1.0.2 (skipRange): head in 1 step',
        '    op.v1.0.1: 1.0.1 [deprecated] -> 1.0.2 (replaces, skipRange): head in 1 step',
        '    op.v1.0.2: 1.0.2: head',
        '',
      ].join('\n'),
    );
  });

  it('prints a Markdown table per package and rules, and the findings after them', () => {
    const before = opCatalog({
      stable: [{ name: 'op.v1.0.0' }, { name: 'op.v1.0.1', replaces: 'op.v1.0.0' }],
    });
    const after = opCatalog({ stable: [{ name: 'op.v1.0.1' }] });
    const changes = upgradePathChanges(before, after, { rules: ['v0'] });
    expect(renderPaths({ paths: changes.next.v0, findings: changes.findings }, 'markdown')).toBe(
      [
        '## op (OLM v0)',
        '',
        '| Channels | Installed | Path | Outcome |',
        '| --- | --- | --- | --- |',
        '| channel "stable" | op.v1.0.0 (no longer in the catalog) | 1.0.0 | stuck at op.v1.0.0 |',
        '| channel "stable" | op.v1.0.1 | 1.0.1 | head |',
        '',
        '## Findings',
        '',
        '| Severity | Rule | Message |',
        '| --- | --- | --- |',
        '| error | upgrade/stranded | op channel "stable": 1.0.0 (op.v1.0.0, no longer in the catalog) has no upgrade path to a head: nothing replaces, skips or skipRange-includes it (v0) |',
        '| error | upgrade/edge-removed | op channel "stable": the upgrade edge op.v1.0.0 -> op.v1.0.1 that users of 1.0.0 took is gone, and it no longer reaches a head (v0) |',
        '',
      ].join('\n'),
    );
  });

  it('writes JSON and YAML that read back as the report', async () => {
    const { parse } = await import('yaml');
    expect(JSON.parse(renderPaths(report, 'json'))).toEqual(report);
    expect(parse(renderPaths(report, 'yaml'))).toEqual(report);
  });
});
