// What every template renderer shares: how a template is given, the bundles it names, and its errors.
import { goQuote } from '../../go-compat/go-format.js';
import { goJsonMarshal } from '../../go-compat/go-json.js';
import { addMeta } from '../declcfg/blobs.js';
import { TemplateError } from '../declcfg/errors.js';
import { MetaError, toMeta } from '../declcfg/meta.js';
import { decodeFirstDocument } from '../declcfg/stream.js';
import { type BundleBlob, type Catalog, emptyCatalog } from '../declcfg/types.js';

/**
 * Already rendered `olm.bundle` blobs keyed by the reference a template uses for them (a bundle image, or a
 * bundle directory path). opm renders these by pulling images; here the caller supplies them.
 */
export type RenderedBundles = ReadonlyMap<string, BundleBlob> | Readonly<Record<string, BundleBlob>>;

/** Options of the template renderers. */
export interface RenderTemplateOptions {
  /** The template's file name, used in error messages and as the source of the rendered blobs. */
  readonly file?: string;
}

/** What a template can be given as: its text (JSON or YAML; only the first document is read) or its parsed value. */
export type TemplateInput = string | Uint8Array | Record<string, unknown>;

export function lookup(bundles: RenderedBundles, ref: string): BundleBlob | undefined {
  return bundles instanceof Map ? bundles.get(ref) : (bundles as Readonly<Record<string, BundleBlob>>)[ref];
}

export function readInput(input: TemplateInput, file: string, wrap: string): unknown {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return input;
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  try {
    return decodeFirstDocument(bytes) ?? null;
  } catch (err) {
    throw new TemplateError('TEMPLATE_INVALID', `${file}: ${wrap}${(err as Error).message}`, file);
  }
}

export const invalid = (file: string, message: string, entry?: string): TemplateError =>
  new TemplateError(
    'TEMPLATE_INVALID',
    entry ? `${file}: ${entry}: ${message}` : `${file}: ${message}`,
    file,
    entry,
  );

export const unknownBundle = (file: string, entry: string, ref: string): TemplateError =>
  new TemplateError(
    'TEMPLATE_UNKNOWN_BUNDLE',
    `${file}: ${entry}: bundle reference ${goQuote(ref)} is not among the rendered bundles`,
    file,
    entry,
    ref,
  );

/**
 * A template's `entries` loaded as FBC blobs, one by one as opm's loader adds them; the first that does not
 * load is refused with opm's message, naming the entry: after `prefix`, and for an entry that does not even
 * decode into its schema's Go type, after `decodePrefix` too.
 */
export function loadTemplateEntries(
  entries: readonly unknown[],
  file: string,
  { prefix = '', decodePrefix = '' }: { readonly prefix?: string; readonly decodePrefix?: string },
): Catalog {
  const loaded = emptyCatalog();
  entries.forEach((entry, i) => {
    let message: string | undefined;
    try {
      message = addMeta(loaded, toMeta(entry, goJsonMarshal(entry, { escapeHtml: false })), {
        file,
        index: i,
      });
    } catch (err) {
      if (!(err instanceof MetaError)) throw err;
      message = `${decodePrefix}${err.message}`;
    }
    if (message !== undefined) throw invalid(file, `${prefix}${message}`, `entries[${i}]`);
  });
  return loaded;
}
