import { goQuote } from '../../go-compat/go-format.js';
import { decodeGo, type GoType } from '../../go-compat/go-json-decode.js';
import type { Catalog } from '../declcfg/types.js';
import { renderSemverTemplate, SCHEMA_SEMVER_TEMPLATE } from './semver-template.js';
import { renderSubstitutesTemplate, SCHEMA_SUBSTITUTES_TEMPLATE } from './substitutes-template.js';
import {
  invalid,
  loadTemplateEntries,
  lookup,
  type RenderedBundles,
  type RenderTemplateOptions,
  readInput,
  type TemplateInput,
  unknownBundle,
} from './template-input.js';

/** Schema of the basic template. */
export const SCHEMA_BASIC_TEMPLATE = 'olm.template.basic';

export {
  parseSemverTemplate,
  renderSemverTemplate,
  SCHEMA_SEMVER_TEMPLATE,
  type SemverTemplate,
} from './semver-template.js';
export type { RenderedBundles, RenderTemplateOptions, TemplateInput } from './template-input.js';

const BASIC_TEMPLATE_TYPE: GoType = {
  kind: 'struct',
  name: 'basic.BasicTemplateData',
  fields: {
    schema: { kind: 'string' },
    entries: { kind: 'slice', elem: { kind: 'any' }, name: '[]*declcfg.Meta' },
  },
};

/**
 * Renders a basic template (`schema: olm.template.basic`) like `opm alpha render-template basic`: its entries are
 * loaded as FBC, every `olm.bundle` entry — which must only have `schema` and `image` — is replaced by the rendered
 * bundle for that image, and everything else passes through unchanged. No validation is run.
 *
 * @throws TemplateError `TEMPLATE_UNKNOWN_BUNDLE` naming the file and entry when an image has no rendered bundle,
 *   `TEMPLATE_INVALID` with opm's message otherwise.
 */
export function renderBasicTemplate(
  input: TemplateInput,
  bundles: RenderedBundles,
  options: RenderTemplateOptions = {},
): Catalog {
  const file = options.file ?? '<template>';
  const doc = readInput(input, file, 'decoding template schema: ');
  const { value, error } = decodeGo(doc, BASIC_TEMPLATE_TYPE);
  if (error !== undefined) throw invalid(file, `unmarshalling template: ${error}`);
  const data = (value ?? {}) as { schema?: string; entries?: unknown[] };
  if (data.schema !== SCHEMA_BASIC_TEMPLATE) {
    throw invalid(
      file,
      `template has unknown schema (${goQuote(data.schema ?? '')}), should be ${goQuote(SCHEMA_BASIC_TEMPLATE)}`,
    );
  }
  const loaded = loadTemplateEntries(data.entries ?? [], file, {
    decodePrefix: 'unmarshalling template: ',
  });
  const out: Catalog = { ...loaded, bundles: [] };
  for (const b of loaded.bundles) {
    const entry = `entries[${b.source?.index ?? '?'}]`;
    const isTemplate =
      b.image !== '' && b.package === '' && b.properties.length === 0 && !b.relatedImages?.length;
    if (!isTemplate) throw invalid(file, 'unexpected fields present in basic template bundle', entry);
    const rendered = lookup(bundles, b.image);
    if (rendered === undefined) throw unknownBundle(file, entry, b.image);
    out.bundles.push({ ...rendered, source: { file, index: b.source?.index ?? 0 } });
  }
  return out;
}

/** The anonymous struct `detectSchema` of opm decodes a template's first document into. */
const TEMPLATE_SCHEMA_TYPE: GoType = { kind: 'struct', name: '', fields: { schema: { kind: 'string' } } };

/** A template read once: its first document, decoded, and the schema it declares. */
export interface TemplateDocument {
  readonly document: Record<string, unknown>;
  readonly schema: string;
}

/**
 * Reads a template's first document and its `schema` like `opm alpha render-template`'s `detectSchema`, through
 * the catalog's YAML and JSON decoders (go-yaml's depth and alias limits). Its `document` is a
 * {@link TemplateInput} that the renderers take without decoding any text again.
 *
 * @throws TemplateError `TEMPLATE_INVALID` naming the file: undecodable input, `template input missing required
 *   'schema' field`
 */
export function readTemplate(input: TemplateInput, options: RenderTemplateOptions = {}): TemplateDocument {
  const file = options.file ?? '<template>';
  const doc = readInput(input, file, 'decoding template input: ');
  // opm reads the schema into a Go struct: `Schema:` names it too, and a non-string is a type error.
  const { value, error } = decodeGo(doc, TEMPLATE_SCHEMA_TYPE);
  if (error !== undefined) throw invalid(file, `unmarshalling template schema: ${error}`);
  const schema = (value as { schema?: string } | undefined)?.schema;
  if (schema === undefined || schema === '')
    throw invalid(file, "template input missing required 'schema' field");
  // A document that decodes into a struct is a mapping.
  return { document: doc as Record<string, unknown>, schema };
}

/**
 * Renders a template of any of the three kinds (basic, semver, substitutes), chosen by the first document's `schema` like `opm alpha render-template`
 * without an explicit type.
 *
 * @throws TemplateError (`template input missing required 'schema' field`, unknown schema, or the renderer's errors)
 */
export function renderTemplate(
  input: TemplateInput,
  bundles: RenderedBundles,
  options: RenderTemplateOptions = {},
): Catalog {
  const file = options.file ?? '<template>';
  const { document, schema } = readTemplate(input, options);
  if (schema === SCHEMA_BASIC_TEMPLATE) return renderBasicTemplate(document, bundles, options);
  if (schema === SCHEMA_SEMVER_TEMPLATE) return renderSemverTemplate(document, bundles, options);
  if (schema === SCHEMA_SUBSTITUTES_TEMPLATE) return renderSubstitutesTemplate(document, bundles, options);
  throw invalid(file, `unknown template schema ${goQuote(schema)}`);
}
