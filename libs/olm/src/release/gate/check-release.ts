import type { BundleBlob } from '../../catalog/declcfg/types.js';
import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { canonicalJson } from '../diff/canonical-json.js';
import { type CatalogEdge, catalogBundles, catalogEdges } from '../edges.js';
import { compareFindings, type Finding } from '../findings.js';
import {
  acceptanceOf,
  bundleAnnotationLookup,
  parseAcceptances,
  RELEASE_ACCEPTS_ANNOTATION,
} from './acceptance.js';
import type { ReleaseCheck } from './release-check.js';
import type { ReleasePolicy } from './release-policy.js';
import { ruleMatchesAny } from './rule-glob.js';

/** A finding the policy fails that the bundle at the end of its edge accepts by annotation, with the reason. */
export interface AcceptedFinding extends Finding {
  readonly acceptedBy: {
    readonly annotation: string;
    readonly rule: string;
    readonly about?: string;
    readonly reason: string;
  };
}

/** What the gate decided and why. */
export interface ReleaseReport {
  /** `fail` when any finding fails the policy and is not accepted. */
  readonly verdict: 'pass' | 'fail';
  /** The edges the edge checks ran on: those the release adds, and those into or out of a bundle changed in place. */
  readonly edges: readonly { readonly package: string; readonly from: string; readonly to: string }[];
  /** Findings that fail the release. */
  readonly failing: readonly Finding[];
  /** Findings that would fail it, accepted by their bundle's annotation. */
  readonly accepted: readonly AcceptedFinding[];
  /** Every other finding, for the reviewer. */
  readonly other: readonly Finding[];
  /** How many findings the policy ignores. */
  readonly ignored: number;
}

/**
 * Runs every check on a release of a catalog, `previous` being the catalog as last released: catalog checks
 * on both, edge checks on each edge of `next` to check (one `previous` lacks, by package, from and to, or one
 * whose end is a bundle changed in place since `previous`), and sorts the findings into failing, accepted and
 * other by the policy and the acceptance annotations of the bundles. `gate/…` findings always fail.
 */
export function checkRelease(
  previous: CatalogModel,
  next: CatalogModel,
  options: { checks: readonly ReleaseCheck[]; policy: ReleasePolicy },
): ReleaseReport {
  const known = new Set(catalogEdges(previous).map(edgeKey));
  const changedInPlace = bundleChangedInPlace(previous, next);
  // Ends the release pruned are taken from `previous`: users are still on them.
  const added = catalogEdges(next, previous).filter(
    (e) =>
      !known.has(edgeKey(e)) ||
      changedInPlace(e.package, e.from.name) ||
      changedInPlace(e.package, e.to.name),
  );
  const findings: Finding[] = [];
  for (const check of options.checks) {
    if (check.catalog !== undefined) findings.push(...check.catalog(previous, next));
    if (check.edge !== undefined) for (const edge of added) findings.push(...check.edge(edge));
  }

  const annotations = bundleAnnotationLookup(next);
  const parsed = new Map<string, ReturnType<typeof parseAcceptances>>();
  const acceptancesOf = (pkg: string, bundle: string) => {
    const key = `${pkg}\u0000${bundle}`;
    let found = parsed.get(key);
    if (found === undefined) {
      const value = annotations(pkg, bundle)[RELEASE_ACCEPTS_ANNOTATION];
      found = value === undefined ? { acceptances: [] } : parseAcceptances(value);
      parsed.set(key, found);
    }
    return found;
  };
  // A malformed annotation on a bundle an edge to check goes into is a finding of its own, so that a typo
  // never accepts or hides anything silently; it accepts nothing.
  const invalid = new Map<string, Finding>();
  for (const edge of added) {
    const problem = acceptancesOf(edge.package, edge.to.name).invalid;
    if (problem !== undefined) {
      invalid.set(`${edge.package}\u0000${edge.to.name}`, {
        rule: 'gate/invalid-acceptance',
        severity: 'error',
        package: edge.package,
        subject: edge.to.name,
        message: `${edge.package} ${edge.to.name}: annotation ${RELEASE_ACCEPTS_ANNOTATION}: ${problem}`,
      });
    }
  }
  findings.push(...invalid.values());

  const failing: Finding[] = [];
  const accepted: AcceptedFinding[] = [];
  const other: Finding[] = [];
  let ignored = 0;
  for (const finding of findings.sort(compareFindings)) {
    // The gate's own findings (a malformed acceptance) fail whatever the policy says: no policy may hide them.
    if (finding.rule.startsWith('gate/')) {
      failing.push(finding);
      continue;
    }
    if (ruleMatchesAny(options.policy.ignore, finding.rule)) {
      ignored++;
      continue;
    }
    const fails =
      options.policy.fail === undefined
        ? finding.severity === 'error'
        : ruleMatchesAny(options.policy.fail, finding.rule);
    if (!fails) {
      other.push(finding);
      continue;
    }
    const acceptance =
      finding.edge === undefined
        ? undefined
        : acceptanceOf(acceptancesOf(finding.package, finding.edge.to).acceptances, finding);
    if (acceptance === undefined) failing.push(finding);
    else accepted.push({ ...finding, acceptedBy: { annotation: RELEASE_ACCEPTS_ANNOTATION, ...acceptance } });
  }
  return {
    verdict: failing.length > 0 ? 'fail' : 'pass',
    edges: added.map((e) => ({ package: e.package, from: e.from.name, to: e.to.name })),
    failing,
    accepted,
    other,
    ignored,
  };
}

/**
 * Whether the manifests of a bundle that both catalogs have changed in place: the same name, other
 * `olm.bundle.object` properties. Only they matter to the edge checks, which read manifests; a new image reference
 * or other properties of a released bundle are the diff family's warnings. A bundle only one of them has is not
 * "changed in place".
 */
function bundleChangedInPlace(
  previous: CatalogModel,
  next: CatalogModel,
): (pkg: string, bundle: string) => boolean {
  const before = catalogBundles(previous);
  const after = catalogBundles(next);
  const manifests = (blob: BundleBlob) => blob.properties.filter((p) => p.type === 'olm.bundle.object');
  return (pkg, bundle) => {
    const [a, b] = [before.get(pkg)?.get(bundle)?.blob, after.get(pkg)?.get(bundle)?.blob];
    if (a === undefined || b === undefined || a === b) return false;
    const [was, is] = [manifests(a), manifests(b)];
    // The same bytes are the same content; other bytes may still mean the same (keys in another order).
    return JSON.stringify(was) !== JSON.stringify(is) && canonicalJson(was) !== canonicalJson(is);
  };
}

function edgeKey(edge: CatalogEdge): string {
  return `${edge.package}\u0000${edge.from.name}\u0000${edge.to.name}`;
}
