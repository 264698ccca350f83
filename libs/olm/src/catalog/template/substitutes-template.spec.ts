import { describe, expect, it } from 'vitest';
import type { BundleBlob } from '../declcfg/types.js';
import { renderSubstitutesTemplate } from './substitutes-template.js';

// The substitutes template on its own; tools/opkit/test/render-images.spec.ts compares it with opm on images.

const bundle = (version: string, image = `quay.io/acme/a-bundle:v${version}`): BundleBlob => ({
  schema: 'olm.bundle',
  name: `a.v${version}`,
  package: 'a',
  image,
  properties: [{ type: 'olm.package', value: { packageName: 'a', version } }],
});

const template = (substitutions: { name: string; base: string }[]) => ({
  schema: 'olm.template.substitutes',
  entries: [
    { schema: 'olm.package', name: 'a', defaultChannel: 'stable' },
    {
      schema: 'olm.channel',
      package: 'a',
      name: 'stable',
      entries: [
        { name: 'a.v1.0.0' },
        { name: 'a.v1.1.0', replaces: 'a.v1.0.0' },
        { name: 'a.v1.2.0', replaces: 'a.v1.1.0', skips: ['a.v1.0.0'] },
      ],
    },
    bundle('1.0.0'),
    bundle('1.1.0'),
    bundle('1.2.0'),
  ],
  substitutions,
});

const rendered = new Map([['quay.io/acme/a-bundle:v1.1.1', bundle('1.1.1')]]);
const render = (substitutions: { name: string; base: string }[]) =>
  renderSubstitutesTemplate(template(substitutions), rendered, { file: 't.yaml' });

describe('the substitutes template', () => {
  it('puts the substitute in the base’s place: its edges, a skip of the base, and the base’s successors', () => {
    const catalog = render([{ name: 'quay.io/acme/a-bundle:v1.1.1', base: 'a.v1.1.0' }]);
    expect(catalog.channels[0]?.entries).toEqual([
      { name: 'a.v1.0.0' },
      { name: 'a.v1.1.0' },
      { name: 'a.v1.2.0', replaces: 'a.v1.1.1', skips: ['a.v1.0.0', 'a.v1.1.0'] },
      { name: 'a.v1.1.1', replaces: 'a.v1.0.0', skips: ['a.v1.1.0'] },
    ]);
    expect(catalog.bundles.map((b) => b.name)).toEqual(['a.v1.0.0', 'a.v1.1.0', 'a.v1.2.0', 'a.v1.1.1']);
  });

  it('moves a skip of the base to the substitute', () => {
    const catalog = render([{ name: 'quay.io/acme/a-bundle:v1.1.1', base: 'a.v1.0.0' }]);
    expect(catalog.channels[0]?.entries).toContainEqual({
      name: 'a.v1.2.0',
      replaces: 'a.v1.1.0',
      skips: ['a.v1.1.1'],
    });
  });

  it('refuses what opm refuses, with its words', () => {
    expect(() => render([{ name: 'quay.io/acme/a-bundle:v1.1.1', base: 'a.v1.2.0' }])).toThrow(
      'render: error processing substitution "a.v1.2.0" -> "quay.io/acme/a-bundle:v1.1.1": base bundle "a.v1.2.0" is not less than substitute bundle "quay.io/acme/a-bundle:v1.1.1"',
    );
    expect(() => render([{ name: 'quay.io/acme/a-bundle:v1.1.1', base: 'a.v9.0.0' }])).toThrow(
      'base bundle "a.v9.0.0" does not exist in catalog',
    );
    expect(() =>
      render([
        { name: 'quay.io/acme/a-bundle:v1.1.1', base: 'a.v1.0.0' },
        { name: 'quay.io/acme/other:v2', base: 'a.v1.0.0' },
      ]),
    ).toThrow('render: cannot reuse the same substitution base "a.v1.0.0"');
    expect(() => render([{ name: 'a.v1.0.0', base: 'a.v1.0.0' }])).toThrow(
      'substitution name and base cannot be the same',
    );
    expect(() => render([{ name: 'quay.io/acme/missing:v1', base: 'a.v1.0.0' }])).toThrow(
      'bundle reference "quay.io/acme/missing:v1" is not among the rendered bundles',
    );
  });
});
