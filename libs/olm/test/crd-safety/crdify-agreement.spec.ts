import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crdifyBinary } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCrds } from '../../src/release/crd-safety/index.js';
import { AGREEMENT_CASES, type AgreementCase, schemaLocations } from './cases.js';

/**
 * OLM v1's preflight configuration of crdify (operator-controller v1.11.0): served versions are not compared
 * when the new CRD converts by webhook, unhandled changes are errors, descriptions are not checked, and new
 * enum values are allowed.
 */
const OLM_V1_PREFLIGHT_CONFIG = `conversion: Ignore
unhandledEnforcement: Error
validations:
  - name: description
    enforcement: None
  - name: enum
    enforcement: Error
    configuration:
      additionPolicy: Allow
`;

interface ComparisonResult {
  name: string;
  errors?: string[];
}
interface VersionResults {
  version: string;
  propertyComparisons?: { property: string; comparisonResults?: ComparisonResult[] }[];
}
interface CrdifyResults {
  crdValidation?: ComparisonResult[];
  sameVersionValidation?: VersionResults[];
  servedVersionValidation?: VersionResults[];
}

type RawCrd = {
  spec: { versions: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: unknown } }[] };
  status?: { storedVersions?: string[] };
};

let crdify: string;
let work: string;

beforeAll(async () => {
  crdify = await crdifyBinary();
  work = mkdtempSync(join(tmpdir(), 'crdify-agreement-'));
  writeFileSync(join(work, 'config.yaml'), OLM_V1_PREFLIGHT_CONFIG);
}, 900_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * The CRD as a cluster has it: the API server records the storage version in `status.storedVersions`, which
 * is what crdify reads (a bundle's CRD carries no status).
 */
function asOnCluster(crd: object): object {
  const copy = structuredClone(crd) as RawCrd;
  const stored = copy.spec.versions.filter((v) => v.storage).map((v) => v.name);
  copy.status = { storedVersions: [...new Set([...(copy.status?.storedVersions ?? []), ...stored])] };
  return copy;
}

function locationsOf(crd: object, version: string): Set<string> {
  const found = (crd as RawCrd).spec.versions.find((v) => v.name === version);
  return schemaLocations(found?.schema?.openAPIV3Schema);
}

/** A crdify location as findings show it: `^.spec.size` is `spec.size`. */
function shown(location: string): string {
  return location === '^' ? '<root>' : location.replace(/^\^\./, '');
}

/** The topmost of a set of locations: those beneath another go with it. */
function topmost(locations: readonly string[]): string[] {
  const beneath = (path: string, other: string) =>
    path.length > other.length && path.startsWith(other) && '.['.includes(path[other.length] ?? '');
  return locations.filter((path) => !locations.some((other) => beneath(path, other)));
}

/**
 * What crdify refused, one entry per validation and place: `crd:<validation>`, or
 * `<same|served>:<validation>:<version or pair>:<field>`. A field gone from a version is one entry,
 * `existingFieldRemoval` at the topmost gone field: crdify lists every gone field beneath it too, and compares
 * each with an empty schema (type changed to "", its default removed, …), consequences of the removal; between
 * served versions those comparisons are all crdify says of a missing field.
 */
function crdifyRefusals(results: CrdifyResults, next: object): Set<string> {
  const refusals = new Set<string>();
  for (const result of results.crdValidation ?? []) {
    const errors = result.errors ?? [];
    if (result.name !== 'existingFieldRemoval') {
      if (errors.length > 0) refusals.add(`crd:${result.name}`);
      continue;
    }
    const removed = new Map<string, string[]>();
    for (const error of errors) {
      const match = /^removed field : ([^.]+)\.(.*)$/.exec(error);
      if (!match) throw new Error(`unexpected crdify message: ${error}`);
      const [, version = '', path = ''] = match;
      removed.set(version, [...(removed.get(version) ?? []), path]);
    }
    for (const [version, paths] of removed) {
      for (const path of topmost(paths)) refusals.add(`crd:existingFieldRemoval:${version}:${shown(path)}`);
    }
  }
  const properties = (scope: 'same' | 'served', versions: VersionResults[] | undefined) => {
    for (const version of versions ?? []) {
      const [older, newer = older] = version.version.split(' -> ');
      const label = scope === 'same' ? version.version : `${older} → ${newer}`;
      const present = locationsOf(next, newer ?? '');
      const missing: string[] = [];
      for (const property of version.propertyComparisons ?? []) {
        for (const result of property.comparisonResults ?? []) {
          if ((result.errors ?? []).length === 0) continue;
          if (present.has(property.property))
            refusals.add(`${scope}:${result.name}:${label}:${shown(property.property)}`);
          else missing.push(property.property);
        }
      }
      if (scope === 'served') {
        for (const path of topmost(missing))
          refusals.add(`served:existingFieldRemoval:${label}:${shown(path)}`);
      }
    }
  };
  properties('same', results.sameVersionValidation);
  properties('served', results.servedVersionValidation);
  return refusals;
}

/** The rule family of a refusal: `<scope>:<validation>`. */
function family(refusal: string): string {
  return refusal.split(':').slice(0, 2).join(':');
}

function ourRefusals(c: AgreementCase): Set<string> {
  const refusals = new Set<string>();
  for (const finding of compareCrds(c.previous, c.next)) {
    if (finding.severity !== 'error') continue;
    if (finding.rule === 'crd/scope-changed' || finding.rule === 'crd/stored-version-removed') {
      refusals.add(`crd:${finding.olmCheck}`);
    } else {
      const scope = finding.servedVersions ? 'served' : finding.rule === 'crd/field-removed' ? 'crd' : 'same';
      refusals.add(`${scope}:${finding.olmCheck}:${finding.version}:${finding.path}`);
    }
  }
  return refusals;
}

async function runCrdify(
  c: AgreementCase,
  index: number,
): Promise<{ refused: boolean; results: CrdifyResults }> {
  const before = join(work, `${index}-previous.json`);
  const after = join(work, `${index}-next.json`);
  writeFileSync(before, JSON.stringify(asOnCluster(c.previous)));
  writeFileSync(after, JSON.stringify(c.next));
  const args = ['--config', join(work, 'config.yaml'), '-o', 'json', `file://${before}`, `file://${after}`];
  try {
    const { stdout } = await promisify(execFile)(crdify, args);
    return { refused: false, results: JSON.parse(stdout) as CrdifyResults };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    // crdify exits 1 when it found an incompatibility, after printing its results.
    if (failed.code !== 1 || !failed.stdout)
      throw new Error(`crdify failed: ${failed.stderr ?? String(error)}`);
    return { refused: true, results: JSON.parse(failed.stdout) as CrdifyResults };
  }
}

describe('compareCrds agrees with crdify as OLM v1 configures it', () => {
  it('covers at least 20 CRD pairs, safe and refused', () => {
    expect(AGREEMENT_CASES.length).toBeGreaterThanOrEqual(20);
    expect(AGREEMENT_CASES.some((c) => c.refusedBy.length === 0)).toBe(true);
    expect(AGREEMENT_CASES.some((c) => c.refusedBy.length > 0)).toBe(true);
  });

  it.each(AGREEMENT_CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, index) => {
    const theirs = await runCrdify(c, index);
    const refusals = [...crdifyRefusals(theirs.results, c.next)].sort();
    expect(theirs.refused, JSON.stringify(theirs.results)).toBe(c.refusedBy.length > 0);
    expect([...new Set(refusals.map(family))].sort(), 'crdify').toEqual([...c.refusedBy].sort());
    expect([...ourRefusals(c)].sort(), 'compareCrds').toEqual(refusals);
  });
});
