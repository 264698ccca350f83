import { readBundleObjects } from '../../catalog/declcfg/properties.js';
import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { ruleMatchesGlob } from './rule-glob.js';

/**
 * The CSV annotation by which a bundle accepts findings on the edges into it, one `<rule glob> (<text>): <reason>`
 * per line, the `(<text>)` optional: `permission/escalation (get on secrets named tls): serves with its
 * certificate`. With a text, only findings whose message contains it as a whole phrase are accepted, so that an
 * acceptance made for one right does not wave through the next one of the same rule (`named tls-admin`,
 * `customresourcedefinitions.apiextensions.k8s.io/status`).
 */
export const RELEASE_ACCEPTS_ANNOTATION = 'opkit.dev/release-accepts';

/** One accepted rule glob, the text its findings' messages contain if it names one, and why. */
export interface Acceptance {
  readonly rule: string;
  readonly about?: string;
  readonly reason: string;
}

/** Above these an annotation is refused: a reviewer reads every line of it. */
export const RELEASE_ACCEPTS_LIMITS = { bytes: 64 * 1024, lines: 200 } as const;

const LINE = /^([a-z0-9*][a-z0-9*-]*(?:\/[a-z0-9*][a-z0-9*-]*)?)(?:\s+\(([^()]+)\))?\s*:\s*(\S.*)$/;

/**
 * The acceptances an annotation value lists, or none and the one-line reason it is not one: an annotation with
 * one malformed line accepts nothing, so that a typo never leaves half of it in force.
 */
export function parseAcceptances(value: string): { acceptances: Acceptance[]; invalid?: string } {
  const { bytes, lines } = RELEASE_ACCEPTS_LIMITS;
  if (Buffer.byteLength(value, 'utf8') > bytes) {
    return { acceptances: [], invalid: `is larger than ${bytes / 1024} KiB` };
  }
  const rawLines = value.split('\n');
  if (rawLines.filter((l) => l.trim() !== '').length > lines) {
    return { acceptances: [], invalid: `has more than ${lines} lines` };
  }
  const acceptances: Acceptance[] = [];
  for (const raw of rawLines) {
    const line = raw.trim();
    if (line === '') continue;
    const match = LINE.exec(line);
    if (match === null) {
      return { acceptances: [], invalid: `line "${line}" is not "<rule glob> (<text>): <reason>"` };
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

/**
 * The first acceptance of the finding: its rule matches and its message contains the text named, if any, as a
 * whole phrase.
 */
export function acceptanceOf(
  acceptances: readonly Acceptance[],
  finding: { readonly rule: string; readonly message: string },
): Acceptance | undefined {
  return acceptances.find(
    (a) =>
      ruleMatchesGlob(a.rule, finding.rule) &&
      (a.about === undefined || containsPhrase(finding.message, a.about)),
  );
}

/**
 * Whether `text` occurs in `message` ending a phrase: followed by the message's end, a space, a comma, a
 * parenthesis, or a period that does not continue a word (`tls.` ends a sentence; `tls.crt`, `tls-admin`,
 * `…k8s.io/status` go on).
 */
export function containsPhrase(message: string, text: string): boolean {
  for (let at = message.indexOf(text); at !== -1; at = message.indexOf(text, at + 1)) {
    const rest = message.slice(at + text.length);
    if (rest === '' || /^[ ,()]/.test(rest) || /^\.(?!\w)/.test(rest)) return true;
  }
  return false;
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
