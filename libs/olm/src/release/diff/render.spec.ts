import { describe, expect, it } from 'vitest';
import { yamlLibrary } from '../../yaml-library.js';
import { renderCatalogDiff } from './render.js';
import type { CatalogDiff } from './types.js';

const unchangedBundle = {
  properties: [],
  objectsAdded: [],
  objectsRemoved: [],
  objectsChanged: [],
  relatedImagesAdded: [],
  relatedImagesRemoved: [],
  relatedImagesChanged: [],
};

/** demo gains 1.2.0 in stable and loses 1.0.0; `old` leaves the catalog. */
const diff: CatalogDiff = {
  packages: [
    {
      name: 'demo',
      status: 'changed',
      defaultChannel: { from: 'alpha', to: 'stable' },
      channelsAdded: [],
      channelsRemoved: [],
      channels: [
        {
          name: 'stable',
          entriesAdded: ['demo.v1.2.0'],
          entriesRemoved: ['demo.v1.0.0'],
          edgesAdded: [{ from: 'demo.v1.1.0', to: 'demo.v1.2.0', kind: 'replaces' }],
          edgesRemoved: [{ from: 'demo.v1.0.0', to: 'demo.v1.1.0', kind: 'replaces' }],
          skipRanges: [],
        },
      ],
      bundlesAdded: [{ name: 'demo.v1.2.0', version: '1.2.0' }],
      bundlesRemoved: [{ name: 'demo.v1.0.0', version: '1.0.0' }],
      bundles: [
        {
          name: 'demo.v1.1.0',
          version: '1.1.0',
          ...unchangedBundle,
          objectsChanged: [{ kind: 'CustomResourceDefinition', name: 'demos.demo.io' }],
          relatedImagesChanged: [{ name: 'operator', from: 'example.com/demo:1', to: 'example.com/demo:2' }],
        },
      ],
    },
    {
      name: 'old',
      status: 'removed',
      channelsAdded: [],
      channelsRemoved: ['alpha'],
      channels: [],
      bundlesAdded: [],
      bundlesRemoved: [{ name: 'old.v0.1.0', version: '0.1.0' }],
      bundles: [],
    },
  ],
};

describe('renderCatalogDiff', () => {
  it('text: one line per change under its package, + added, - removed, ~ changed', () => {
    expect(renderCatalogDiff(diff, 'text')).toBe(
      [
        'package demo',
        '  ~ default channel "alpha" → "stable"',
        '  + channel stable: entry demo.v1.2.0 added',
        '  - channel stable: entry demo.v1.0.0 removed',
        '  + channel stable: edge demo.v1.1.0 → demo.v1.2.0 (replaces) added',
        '  - channel stable: edge demo.v1.0.0 → demo.v1.1.0 (replaces) removed',
        '  + bundle demo.v1.2.0 (1.2.0) added',
        '  - bundle demo.v1.0.0 (1.0.0) removed',
        '  ~ released bundle demo.v1.1.0 changed in place: manifest CustomResourceDefinition/demos.demo.io changed',
        '  ~ bundle demo.v1.1.0: related image operator example.com/demo:1 → example.com/demo:2',
        'package old',
        '  - package removed with 1 channel and 1 bundle: old.v0.1.0 (0.1.0)',
        '',
      ].join('\n'),
    );
  });

  it('names at most ten bundles in the line of a package that went, counting the rest', () => {
    const bundles = Array.from({ length: 12 }, (_, i) => ({ name: `big.v1.${i}.0` }));
    const big: CatalogDiff = {
      packages: [
        { ...(diff.packages[1] as CatalogDiff['packages'][number]), name: 'big', bundlesRemoved: bundles },
      ],
    };
    expect(renderCatalogDiff(big, 'text')).toBe(
      `package big\n  - package removed with 1 channel and 12 bundles: ${bundles
        .slice(0, 10)
        .map((b) => b.name)
        .join(', ')} and 2 more\n`,
    );
  });

  it('says "no changes" when there are none, in text and markdown', () => {
    expect(renderCatalogDiff({ packages: [] }, 'text')).toBe('no changes\n');
    expect(renderCatalogDiff({ packages: [] }, 'markdown')).toBe('## Catalog changes\n\nNo changes.\n');
  });

  it('markdown: a table of counts per package, then a section per package with its changes as bullets', () => {
    const markdown = renderCatalogDiff(diff, 'markdown');
    expect(markdown.split('\n').slice(0, 6)).toEqual([
      '## Catalog changes',
      '',
      '| Package | Status | Added | Removed | Changed | Warnings |',
      '| --- | --- | ---: | ---: | ---: | ---: |',
      '| `demo` | changed | 3 | 3 | 3 | 3 |',
      '| `old` | removed | 0 | 1 | 0 | 1 |',
    ]);
    expect(markdown).toContain('\n### `demo`\n\n- **warning:** default channel "alpha" → "stable"\n');
    expect(markdown).toContain('\n- **warning:** bundle demo.v1.0.0 (1.0.0) removed\n');
    expect(markdown).not.toMatch(/<[a-z]/);
  });

  it('markdown: escapes what GitHub would read as markup in names and messages', () => {
    const deprecated: CatalogDiff = {
      packages: [
        {
          ...(diff.packages[1] as CatalogDiff['packages'][number]),
          status: 'changed',
          channelsRemoved: [],
          bundlesRemoved: [],
          deprecation: { to: 'use <b>new</b> | see *docs*' },
        },
      ],
    };
    expect(renderCatalogDiff(deprecated, 'markdown')).toContain(
      '- package deprecated: "use \\<b\\>new\\</b\\> \\| see \\*docs\\*"\n',
    );
  });

  it('json and yaml: the structure itself, the same bytes each time', () => {
    expect(JSON.parse(renderCatalogDiff(diff, 'json'))).toEqual(diff);
    expect(yamlLibrary().parse(renderCatalogDiff(diff, 'yaml'))).toEqual(diff);
    expect(renderCatalogDiff(diff, 'yaml')).toBe(renderCatalogDiff(structuredClone(diff), 'yaml'));
  });
});
