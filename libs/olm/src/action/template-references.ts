import { parseSemverTemplate, SCHEMA_SEMVER_TEMPLATE } from '../catalog/template/semver-template.js';
import { SCHEMA_SUBSTITUTES_TEMPLATE } from '../catalog/template/substitutes-template.js';
import { loadTemplateEntries } from '../catalog/template/template-input.js';
import { SCHEMA_BASIC_TEMPLATE, type TemplateDocument } from '../catalog/template/templates.js';
import { decodeGo, type GoType } from '../go-compat/go-json-decode.js';

/** The fields of the basic and substitutes templates that name bundles, decoded as opm decodes them. */
const BUNDLE_NAMING_TYPE: GoType = {
  kind: 'struct',
  name: '',
  fields: {
    entries: { kind: 'slice', elem: { kind: 'any' }, name: '[]*declcfg.Meta' },
    substitutions: {
      kind: 'slice',
      name: '[]substitutes.Substitute',
      elem: { kind: 'struct', name: 'substitutes.Substitute', fields: { name: { kind: 'string' } } },
    },
  },
};

/**
 * Every bundle reference a template names, each once, in the template's order: the `image` of a basic
 * template's `olm.bundle` entries, of a semver template's bundle lists, a substitutes template's substitutes
 * (its entries carry full bundles). Read leniently: a template the renderer refuses yields what could be read,
 * and the render that follows says what is wrong with it.
 */
export function templateBundleReferences({ document, schema }: TemplateDocument, file: string): string[] {
  const references = new Set<string>();
  try {
    if (schema === SCHEMA_SEMVER_TEMPLATE) {
      const template = parseSemverTemplate(document, { file });
      for (const list of [template.candidate, template.fast, template.stable])
        for (const bundle of list.bundles) references.add(bundle.image);
    } else if (schema === SCHEMA_BASIC_TEMPLATE || schema === SCHEMA_SUBSTITUTES_TEMPLATE) {
      const { value } = decodeGo(document, BUNDLE_NAMING_TYPE);
      const data = (value ?? {}) as { entries?: unknown[]; substitutions?: { name: string }[] };
      if (schema === SCHEMA_BASIC_TEMPLATE) {
        for (const bundle of loadTemplateEntries(data.entries ?? [], file, {}).bundles)
          references.add(bundle.image);
      }
      for (const substitution of data.substitutions ?? []) references.add(substitution.name);
    }
  } catch {
    // What was read so far; the render reports the template's own error.
  }
  references.delete('');
  return [...references];
}
