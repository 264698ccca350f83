// What every template renderer shares: how a template is given, the bundles it names, and its errors.
import { goQuote } from '../semver/go-quote.js';
import { TemplateError } from './errors.js';
import { decodeFirstDocument } from './stream.js';
import type { BundleBlob } from './types.js';

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
