import type { CatalogModel } from '../../catalog/model/catalog-model.js';
import { type CatalogEdge, catalogEdges } from '../edges.js';
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
  /** The edges the release adds, which the edge checks ran on. */
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
 * on both, edge checks on each edge of `next` that `previous` lacks (by package, from and to), and sorts the
 * findings into failing, accepted and other by the policy and the acceptance annotations of the bundles.
 */
export function checkRelease(
  previous: CatalogModel,
  next: CatalogModel,
  options: { checks: readonly ReleaseCheck[]; policy: ReleasePolicy },
): ReleaseReport {
  const known = new Set(catalogEdges(previous).map(edgeKey));
  const added = catalogEdges(next).filter((e) => !known.has(edgeKey(e)));
  const findings: Finding[] = [];
  for (const check of options.checks) {
    if (check.catalog !== undefined) findings.push(...check.catalog(previous, next));
    if (check.edge !== undefined) for (const edge of added) findings.push(...check.edge(edge));
  }

  const annotations = bundleAnnotationLookup(next);
  const acceptances = (finding: Finding) => {
    const value =
      finding.edge === undefined
        ? undefined
        : annotations(finding.package, finding.edge.to)[RELEASE_ACCEPTS_ANNOTATION];
    return value === undefined ? { acceptances: [] } : parseAcceptances(value);
  };
  // A malformed annotation on a bundle the release adds an edge into is a finding of its own, so that a typo
  // never accepts or hides anything silently.
  const invalid = new Map<string, Finding>();
  for (const edge of added) {
    const value = annotations(edge.package, edge.to.name)[RELEASE_ACCEPTS_ANNOTATION];
    const problem = value === undefined ? undefined : parseAcceptances(value).invalid;
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
    const acceptance = finding.rule.startsWith('gate/')
      ? undefined
      : acceptanceOf(acceptances(finding).acceptances, finding);
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

function edgeKey(edge: CatalogEdge): string {
  return `${edge.package}\u0000${edge.from.name}\u0000${edge.to.name}`;
}
