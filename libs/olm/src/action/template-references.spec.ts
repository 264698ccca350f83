import { describe, expect, it } from 'vitest';
import { readTemplate } from '../catalog/template/templates.js';
import { templateBundleReferences } from './template-references.js';

const references = (text: string) =>
  templateBundleReferences(readTemplate(text, { file: 't.yaml' }), 't.yaml');

describe('the bundle references of a template, resolved before it is rendered', () => {
  it("a basic template's olm.bundle images, each once, in order", () => {
    expect(
      references(
        [
          'schema: olm.template.basic',
          'entries:',
          '  - {schema: olm.package, name: demo, defaultChannel: alpha}',
          '  - {schema: olm.bundle, image: quay.io/acme/demo-bundle:v0.2.0}',
          '  - {schema: olm.bundle, image: bundles/demo/0.1.0}',
          '  - {schema: olm.bundle, image: quay.io/acme/demo-bundle:v0.2.0}',
        ].join('\n'),
      ),
    ).toEqual(['quay.io/acme/demo-bundle:v0.2.0', 'bundles/demo/0.1.0']);
  });

  it("a semver template's bundle lists, and a substitutes template's substitutes", () => {
    expect(
      references(
        'schema: olm.semver\nGenerateMajorChannels: true\nstable:\n  bundles: [{image: a}, {image: b}]\nfast:\n  bundles: [{image: c}]',
      ),
    ).toEqual(['c', 'a', 'b']);
    expect(
      references(
        'schema: olm.template.substitutes\nentries: []\nsubstitutions:\n  - {name: quay.io/acme/demo-bundle:v0.2.1, base: demo.v0.2.0}',
      ),
    ).toEqual(['quay.io/acme/demo-bundle:v0.2.1']);
  });

  it('what could be read of a template the renderer will refuse', () => {
    expect(references('schema: olm.semver\nstable: 3')).toEqual([]);
  });
});
