// opm's substitutes template (`schema: olm.template.substitutes`): an FBC whose upgrade graph gets a newer
// build of a released bundle put in that bundle's place (what the olm.substitutesFor annotation did for
// sqlite catalogs), written as `substitutions: [{ name: <bundle image>, base: <bundle name> }]`.
import { goQuote } from '../../go-compat/go-format.js';
import { decodeGo, type GoType } from '../../go-compat/go-json-decode.js';
import type { BundleBlob, Catalog, ChannelEntry } from '../declcfg/types.js';
import { validateCatalog } from '../model/validate.js';
import { bundleVersionRelease, compareVersionReleases } from '../model/version-release.js';
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

/** Schema of the substitutes template. */
export const SCHEMA_SUBSTITUTES_TEMPLATE = 'olm.template.substitutes';

/** One substitution: the bundle image `name` takes the place of the bundle named `base`. */
export interface Substitution {
  readonly name: string;
  readonly base: string;
}

const SUBSTITUTES_TEMPLATE_TYPE: GoType = {
  kind: 'struct',
  name: 'substitutes.SubstitutesTemplateData',
  fields: {
    schema: { kind: 'string' },
    entries: { kind: 'slice', elem: { kind: 'any' }, name: '[]*declcfg.Meta' },
    substitutions: {
      kind: 'slice',
      name: '[]substitutes.Substitute',
      elem: {
        kind: 'struct',
        name: 'substitutes.Substitute',
        fields: { name: { kind: 'string' }, base: { kind: 'string' } },
      },
    },
  },
};

/** The first error opm's model conversion would report for the catalog, if any. */
function modelError(catalog: Catalog): string | undefined {
  return validateCatalog(catalog).find((r) => r.level === 'error')?.message;
}

/** Puts `substitute` in the place of `base` in every channel, as opm's `processSubstitution` does. */
function substitute(catalog: Catalog, base: string, substituteBlob: BundleBlob): void {
  for (const channel of catalog.channels) {
    const original = channel.entries.length;
    const bases = channel.entries.flatMap((e, i) => (e.name === base ? [i] : []));
    // The substitute takes over the base's incoming edges and skips the base; the base keeps none.
    for (const i of [...bases].reverse()) {
      const entry = channel.entries[i] as ChannelEntry;
      const added: ChannelEntry = { name: substituteBlob.name, skips: [...(entry.skips ?? []), base] };
      if (entry.replaces) added.replaces = entry.replaces;
      if (entry.skipRange) added.skipRange = entry.skipRange;
      channel.entries.push(added);
      channel.entries[i] = { name: entry.name };
    }
    // Whoever replaced or skipped the base now replaces (and still skips) or skips the substitute.
    for (let j = 0; j < original; j++) {
      const entry = channel.entries[j] as ChannelEntry;
      if (entry.replaces === base) {
        channel.entries[j] = {
          ...entry,
          replaces: substituteBlob.name,
          skips: [...(entry.skips ?? []), base],
        };
      } else if (entry.skips?.includes(base)) {
        channel.entries[j] = {
          ...entry,
          skips: [...entry.skips, substituteBlob.name].filter((s) => s !== base),
        };
      }
    }
  }
  catalog.bundles.push(substituteBlob);
}

/** The template's entries loaded as FBC (which must be valid), and its substitutions. */
function loadTemplate(
  input: TemplateInput,
  file: string,
): { catalog: Catalog; substitutions: Substitution[] } {
  const doc = readInput(input, file, 'render: unable to parse template: decoding template schema: ');
  const { value, error } = decodeGo(doc, SUBSTITUTES_TEMPLATE_TYPE);
  if (error !== undefined)
    throw invalid(file, `render: unable to parse template: unmarshalling template: ${error}`);
  const data = (value ?? {}) as { schema?: string; entries?: unknown[]; substitutions?: Substitution[] };
  if (data.schema !== SCHEMA_SUBSTITUTES_TEMPLATE) {
    throw invalid(
      file,
      `render: unable to parse template: template has unknown schema (${goQuote(data.schema ?? '')}), should be ${goQuote(SCHEMA_SUBSTITUTES_TEMPLATE)}`,
    );
  }
  const catalog = loadTemplateEntries(data.entries ?? [], file, {
    prefix: 'render: unable to create declarative config from entries: ',
  });
  const entriesError = modelError(catalog);
  if (entriesError !== undefined) throw invalid(file, `render: entries are not valid FBC: ${entriesError}`);
  return { catalog, substitutions: data.substitutions ?? [] };
}

/**
 * Renders a substitutes template like `opm alpha render-template substitutes`: the entries are loaded as FBC
 * and must be valid; then, in order, each substitution's image (looked up in `bundles`, rendered as opm
 * renders a bundle image) must be newer than its base (by version, then release), replaces the base in every
 * channel and is added to the bundles; the result must be valid FBC again. A base or a substitute may be used
 * once.
 *
 * @throws TemplateError `TEMPLATE_UNKNOWN_BUNDLE` when an image has no rendered bundle, `TEMPLATE_INVALID` with
 *   opm's message otherwise
 */
export function renderSubstitutesTemplate(
  input: TemplateInput,
  bundles: RenderedBundles,
  options: RenderTemplateOptions = {},
): Catalog {
  const file = options.file ?? '<template>';
  const { catalog, substitutions } = loadTemplate(input, file);

  const seenBases = new Set<string>();
  const seenCandidates = new Map<string, string>();
  substitutions.forEach((s, i) => {
    const where = `substitutions[${i}]`;
    if (seenBases.has(s.base))
      throw invalid(file, `render: cannot reuse the same substitution base ${goQuote(s.base)}`, where);
    seenBases.add(s.base);
    const candidateBase = seenCandidates.get(s.name);
    if (candidateBase !== undefined) {
      throw invalid(
        file,
        `render: cannot reuse the same substitution ${goQuote(s.name)} for different bases (${goQuote(candidateBase)} and ${goQuote(s.base)})`,
        where,
      );
    }
    seenCandidates.set(s.name, s.base);
    const fail = (message: string) =>
      invalid(
        file,
        `render: error processing substitution ${goQuote(s.base)} -> ${goQuote(s.name)}: ${message}`,
        where,
      );
    if (s.name === '') throw fail('substitution name cannot be empty');
    if (s.base === '') throw fail('substitution base cannot be empty');
    if (s.name === s.base) throw fail('substitution name and base cannot be the same');
    const rendered = lookup(bundles, s.name);
    if (rendered === undefined) throw unknownBundle(file, where, s.name);
    const baseBlob = catalog.bundles.find((b) => b.name === s.base);
    const versionRelease = (blob: BundleBlob, role: 'substitute' | 'base', name: string) => {
      try {
        return bundleVersionRelease(blob);
      } catch (err) {
        throw fail(
          `failed to get VersionRelease for ${role} bundle ${goQuote(name)}: ${(err as Error).message}`,
        );
      }
    };
    const substituteVr = versionRelease(rendered, 'substitute', s.name);
    if (baseBlob === undefined) throw fail(`base bundle ${goQuote(s.base)} does not exist in catalog`);
    const order = compareVersionReleases(versionRelease(baseBlob, 'base', s.base), substituteVr);
    if (order >= 0)
      throw fail(`base bundle ${goQuote(s.base)} is not less than substitute bundle ${goQuote(s.name)}`);
    substitute(catalog, s.base, { ...rendered, source: { file, index: i } });
    const resultError = modelError(catalog);
    if (resultError !== undefined) throw fail(`resulting config is not valid FBC: ${resultError}`);
  });
  return catalog;
}
