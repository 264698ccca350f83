import { describe, expect, it } from 'vitest';
import { TemplateError } from '../declcfg/errors.js';
import { bundleBlob } from '../declcfg/spec-fixtures.js';
import type { BundleBlob } from '../declcfg/types.js';
import {
  parseSemverTemplate,
  readTemplate,
  renderBasicTemplate,
  renderSemverTemplate,
  renderTemplate,
} from './templates.js';

const image = (v: string) => `quay.io/example/op-bundle:v${v}`;
const rendered = (versions: string[]): Map<string, BundleBlob> =>
  new Map(versions.map((v) => [image(v), bundleBlob('op', v)]));
const stableTemplate = (versions: string[], flags = '') =>
  `schema: olm.semver\n${flags}stable:\n  bundles:\n${versions.map((v) => `    - image: ${image(v)}\n`).join('')}`;
const entries = (c: { channels: { name: string; entries: unknown[] }[] }) =>
  Object.fromEntries(c.channels.map((ch) => [ch.name, ch.entries]));

describe('renderSemverTemplate (operator-registry v1.73.0 semantics)', () => {
  const versions = ['1.0.0', '1.0.1', '1.1.0', '1.1.1', '2.0.0'];

  it('links minor channels: the Y head replaces the previous Y head and skips every lower version of its X', () => {
    const c = renderSemverTemplate(stableTemplate(versions), rendered(versions));
    expect(entries(c)).toEqual({
      'stable-v1.0': [{ name: 'op.v1.0.0' }, { name: 'op.v1.0.1', skips: ['op.v1.0.0'] }],
      'stable-v1.1': [
        { name: 'op.v1.1.0' },
        { name: 'op.v1.1.1', replaces: 'op.v1.0.1', skips: ['op.v1.0.0', 'op.v1.1.0'] },
      ],
      'stable-v2.0': [{ name: 'op.v2.0.0' }],
    });
    expect(c.packages).toMatchObject([{ name: 'op', defaultChannel: 'stable-v2.0' }]);
    expect(c.bundles.map((b) => b.name)).toEqual(versions.map((v) => `op.v${v}`));
  });

  it('puts the same edges into major channels when only those are generated', () => {
    const c = renderSemverTemplate(
      stableTemplate(versions, 'generateMajorChannels: true\n'),
      rendered(versions),
    );
    expect(entries(c)).toEqual({
      'stable-v1': [
        { name: 'op.v1.0.0' },
        { name: 'op.v1.0.1', skips: ['op.v1.0.0'] },
        { name: 'op.v1.1.0' },
        { name: 'op.v1.1.1', replaces: 'op.v1.0.1', skips: ['op.v1.0.0', 'op.v1.1.0'] },
      ],
      'stable-v2': [{ name: 'op.v2.0.0' }],
    });
    expect(c.packages[0]?.defaultChannel).toBe('stable-v2');
  });

  it('prefers the most stable archetype for the default channel, then the highest version', () => {
    const all = ['1.0.0', '2.0.0'];
    const template = `schema: olm.semver\ncandidate:\n  bundles:\n    - image: ${image('2.0.0')}\nstable:\n  bundles:\n    - image: ${image('1.0.0')}\n`;
    expect(renderSemverTemplate(template, rendered(all)).packages[0]?.defaultChannel).toBe('stable-v1.0');
  });

  it('names the template file and entry of a bundle reference that was not rendered', () => {
    const err = (() => {
      try {
        renderSemverTemplate(stableTemplate(['1.0.0', '1.1.0']), rendered(['1.0.0']), {
          file: 'catalog-templates/op.yaml',
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })() as TemplateError;
    expect(err).toBeInstanceOf(TemplateError);
    expect(err.code).toBe('TEMPLATE_UNKNOWN_BUNDLE');
    expect(err.entry).toBe('stable.bundles[1]');
    expect(err.message).toBe(
      `catalog-templates/op.yaml: stable.bundles[1]: bundle reference "${image('1.1.0')}" is not among the rendered bundles`,
    );
  });

  it('rejects avoidSkipPatch and other unknown keys, as opm parses the template strictly', () => {
    expect(() =>
      parseSemverTemplate('schema: olm.semver\navoidSkipPatch: true\n', { file: 't.yaml' }),
    ).toThrow(
      't.yaml: render: unable to read file: error unmarshaling JSON: while decoding JSON: json: unknown field "avoidSkipPatch"',
    );
  });

  it('accepts upper-camel-case keys, which opm matches case-insensitively', () => {
    const t = parseSemverTemplate(
      'Schema: olm.semver\nGenerateMajorChannels: true\nStable:\n  Bundles:\n    - Image: x\n',
    );
    expect(t).toMatchObject({
      generateMajorChannels: true,
      generateMinorChannels: false,
      stable: { bundles: [{ image: 'x' }] },
    });
  });

  it('checks the default channel preference against the generated kinds', () => {
    expect(() => parseSemverTemplate('schema: olm.semver\ndefaultChannelTypePreference: major\n')).toThrow(
      "DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels",
    );
  });

  it('rejects versions of one archetype that differ only by build metadata', () => {
    const bundles = new Map([
      ['a', bundleBlob('op', '1.0.0+1', 'op.a')],
      ['b', bundleBlob('op', '1.0.0+2', 'op.b')],
    ]);
    expect(() =>
      renderSemverTemplate('schema: olm.semver\nstable:\n  bundles: [{image: a}, {image: b}]\n', bundles),
    ).toThrow(
      'encountered bundle versions which differ only by build metadata, which cannot be ordered: bundle version "1.0.0+2" cannot be compared to "1.0.0"',
    );
  });
});

describe('renderBasicTemplate', () => {
  const template = `schema: olm.template.basic
entries:
  - {schema: olm.package, name: op, defaultChannel: stable}
  - schema: olm.channel
    package: op
    name: stable
    entries: [{name: op.v1.0.0}]
  - {schema: olm.bundle, image: ${image('1.0.0')}}
`;

  it('replaces bundle entries by the rendered bundles and passes the rest through', () => {
    const c = renderBasicTemplate(template, rendered(['1.0.0']), { file: 'basic.yaml' });
    expect(c.packages[0]?.name).toBe('op');
    expect(c.bundles).toEqual([{ ...bundleBlob('op', '1.0.0'), source: { file: 'basic.yaml', index: 2 } }]);
  });

  it('names the file and entry of an image without rendered bundle', () => {
    expect(() => renderBasicTemplate(template, new Map(), { file: 'basic.yaml' })).toThrow(
      `basic.yaml: entries[2]: bundle reference "${image('1.0.0')}" is not among the rendered bundles`,
    );
  });

  it('refuses bundle entries that carry more than schema and image', () => {
    const bad = template.replace('{schema: olm.bundle, image:', '{schema: olm.bundle, package: op, image:');
    expect(() => renderBasicTemplate(bad, rendered(['1.0.0']), { file: 'b.yaml' })).toThrow(
      'b.yaml: entries[2]: unexpected fields present in basic template bundle',
    );
  });

  it('is chosen by renderTemplate from the schema', () => {
    expect(renderTemplate(template, rendered(['1.0.0'])).channels[0]?.name).toBe('stable');
    expect(() => renderTemplate('foo: bar\n', new Map())).toThrow(
      "template input missing required 'schema' field",
    );
  });
});

describe('readTemplate', () => {
  it("reads the first document and its schema as opm's detectSchema does, for renderTemplate to take", () => {
    const text = `${stableTemplate(['1.0.0'], 'generateMajorChannels: true\n').replace('schema:', 'Schema:')}---\nx: [\n`;
    const read = readTemplate(text, { file: 't.yaml' });
    expect(read.schema).toBe('olm.semver');
    expect(read.document).toMatchObject({ Schema: 'olm.semver', generateMajorChannels: true });
    const c = renderTemplate(read.document, rendered(['1.0.0']), { file: 't.yaml' });
    expect(c.channels.map((ch) => ch.name)).toEqual(['stable-v1']);
  });

  it('refuses what the catalog decoder refuses, naming the file', () => {
    const levels = 'abcdefghi';
    const bomb = [...levels]
      .map(
        (k, i) =>
          `${k}: &${k} [${Array<string>(10)
            .fill(i === 0 ? 'x' : `*${levels[i - 1]}`)
            .join(', ')}]`,
      )
      .join('\n');
    expect(() => readTemplate(`schema: olm.semver\n${bomb}\n`, { file: 't.yaml' })).toThrow(
      't.yaml: decoding template input: error converting YAML to JSON: yaml: document contains excessive aliasing',
    );
    expect(() => readTemplate('schema: [x]\n', { file: 't.yaml' })).toThrow(TemplateError);
    expect(() => readTemplate('foo: bar\n', { file: 't.yaml' })).toThrow(
      "t.yaml: template input missing required 'schema' field",
    );
  });
});
