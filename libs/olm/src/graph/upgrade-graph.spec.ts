import { describe, expect, it } from 'vitest';
import { oneChannel } from '../catalog/declcfg/spec-fixtures.js';
import { convertToModel } from '../catalog/model/convert-to-model.js';
import { renderDot } from './render-dot.js';
import { renderText } from './render-text.js';
import { buildUpgradeGraph } from './upgrade-graph.js';

const model = convertToModel(
  oneChannel(
    [
      { name: 'op.v1.0.0' },
      { name: 'op.v1.1.0', replaces: 'op.v1.0.0' },
      { name: 'op.v1.2.0', replaces: 'op.v1.1.0', skips: ['op.v1.1.0'], skipRange: '>=1.0.0 <1.2.0' },
    ],
    'op',
  ),
);

describe('buildUpgradeGraph', () => {
  it('derives edges from replaces, skips and skipRange', () => {
    const [stable] = buildUpgradeGraph(model, 'op').channels;
    expect(stable?.head).toBe('op.v1.2.0');
    expect(stable?.edges).toEqual([
      { from: 'op.v1.0.0', to: 'op.v1.1.0', kind: 'replaces', channel: 'stable' },
      { from: 'op.v1.1.0', to: 'op.v1.2.0', kind: 'replaces', channel: 'stable' },
      { from: 'op.v1.1.0', to: 'op.v1.2.0', kind: 'skips', channel: 'stable' },
      { from: 'op.v1.0.0', to: 'op.v1.2.0', kind: 'skipRange', channel: 'stable', range: '>=1.0.0 <1.2.0' },
      { from: 'op.v1.1.0', to: 'op.v1.2.0', kind: 'skipRange', channel: 'stable', range: '>=1.0.0 <1.2.0' },
    ]);
  });

  it('renders as text', () => {
    expect(renderText(buildUpgradeGraph(model, 'op'))).toBe(
      [
        'package op (default channel stable)',
        '  channel stable (default, head op.v1.2.0)',
        '    op.v1.0.0 (1.0.0)',
        '    op.v1.1.0 (1.1.0) <- replaces op.v1.0.0',
        '    op.v1.2.0 (1.2.0) <- replaces op.v1.1.0; skips op.v1.1.0; skipRange >=1.0.0 <1.2.0 covers op.v1.0.0, op.v1.1.0',
        '',
      ].join('\n'),
    );
  });

  it('renders as DOT with one cluster per channel and a style per edge kind', () => {
    const dot = renderDot(buildUpgradeGraph(model, 'op'));
    expect(dot).toContain('subgraph "cluster_stable" {');
    expect(dot).toContain('"stable/op.v1.2.0" [label="op.v1.2.0\\n1.2.0", style=bold];');
    expect(dot).toContain(
      '"stable/op.v1.0.0" -> "stable/op.v1.2.0" [label="skipRange >=1.0.0 <1.2.0", style=dotted];',
    );
    expect(dot.trim().endsWith('}')).toBe(true);
  });

  it('rejects an unknown package', () => {
    expect(() => buildUpgradeGraph(model, 'nope')).toThrow('unknown package "nope"');
  });
});
