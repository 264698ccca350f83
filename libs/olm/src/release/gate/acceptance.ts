import { readBundleObjects } from '../../catalog/declcfg/properties.js';
import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { ruleMatchesGlob } from './rule-glob.js';

/**
 * The CSV annotation by which a bundle accepts findings on the edges into it, one `<rule glob> (<text>): <reason>`
 * per line, the `(<text>)` optional: `permission/escalation (get on secrets named tls): serves with its
 * certificate`. With a text, only findings whose message contains it are accepted, so that an acceptance
 * made for one right does not wave through the next one of the same rule.
 */
export const RELEASE_ACCEPTS_ANNOTATION = 'opkit.dev/release-accepts';

/** One accepted rule glob, the text its findings' messages contain if it names one, and why. */
export interface Acceptance {
  readonly rule: string;
  readonly about?: string;
  readonly reason: string;
}

const LINE = /^([a-z0-9*][a-z0-9*-]*(?:\/[a-z0-9*][a-z0-9*-]*)?)(?:\s+\(([^()]+)\))?\s*:\s*(\S.*)$/;

/** The acceptances an annotation value lists, or the one-line reason it is not one. */
export function parseAcceptances(value: string): { acceptances: Acceptance[]; invalid?: string } {
  const acceptances: Acceptance[] = [];
  for (const raw of value.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const match = LINE.exec(line);
    if (match === null) {
      return { acceptances, invalid: `line "${line}" is not "<rule glob> (<text>): <reason>"` };
    }
    const about = match[2]?.trim();
    acceptances.push({
      rule: match[1] as string,
      ...(about === undefined ? {} : { about }),
      reason: (match[3] as string).trim(),
    });
  }
  return { acceptances };
}

/** The first acceptance of the finding: its rule matches and its message contains the text named, if any. */
export function acceptanceOf(
  acceptances: readonly Acceptance[],
  finding: { readonly rule: string; readonly message: string },
): Acceptance | undefined {
  return acceptances.find(
    (a) =>
      ruleMatchesGlob(a.rule, finding.rule) && (a.about === undefined || finding.message.includes(a.about)),
  );
}

/**
 * The CSV annotations of each bundle of `model`, looked up by package and bundle name: from the CSV among the
 * bundle's manifests, else from its `olm.csv.metadata` property.
 */
export function bundleAnnotationLookup(
  model: CatalogModel,
): (pkg: string, bundle: string) => Readonly<Record<string, string>> {
  const cache = new Map<string, Readonly<Record<string, string>>>();
  return (pkg, bundle) => {
    const key = `${pkg}\u0000${bundle}`;
    let annotations = cache.get(key);
    if (annotations === undefined) {
      annotations = readAnnotations(model, pkg, bundle);
      cache.set(key, annotations);
    }
    return annotations;
  };
}

function readAnnotations(model: CatalogModel, pkg: string, bundle: string): Readonly<Record<string, string>> {
  for (const channel of model.packages.get(pkg)?.channels.values() ?? []) {
    const blob = channel.bundles.get(bundle)?.blob;
    if (blob === undefined) continue;
    for (const text of readBundleObjects(blob).objects) {
      const object = JSON.parse(text) as { kind?: unknown; metadata?: { annotations?: unknown } };
      if (object.kind === 'ClusterServiceVersion') return stringRecord(object.metadata?.annotations);
    }
    return stringRecord(model.properties.get(blob)?.csvMetadatas[0]?.annotations);
  }
  return {};
}

function stringRecord(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object') return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );
}
