import { goQuote, goQuoteSlice } from '../go-compat/go-format.js';
import { isRecord } from '../manifest/manifest.js';
import { tryParseVersion } from '../semver/index.js';
import type { ValidationBundle } from './bundle-model.js';
import {
  errFailedValidation,
  errInvalidBundle,
  type ManifestResult,
  warnFailedValidation,
} from './result.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

const CRD_PERMISSION_WARNING =
  "CSV contains permissions to create CRD. An Operator shouldn't deploy or manage other operators (such patterns are known as meta or super operators or include CRDs in its Operands). It's the Operator Lifecycle Manager's job to manage the deployment and lifecycle of operators.  Please, review the design of your solution and if you should not be using Dependency Resolution from OLM instead. More info: https://sdk.operatorframework.io/docs/best-practices/common-recommendation/";

const SEMVER_SUFFIX =
  /([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+)?$/;

function resourceRequests(spec: Record<string, unknown>): { errs: string[]; warns: string[] } {
  const deployments = rec(rec(spec.install).spec).deployments;
  if (deployments === undefined || deployments === null) {
    return { errs: ['unable to find a deployment to install in the CSV'], warns: [] };
  }
  const warns: string[] = [];
  for (const dep of arr(deployments)) {
    for (const c of arr(rec(rec(rec(rec(dep).spec).template).spec).containers)) {
      const requests = rec(rec(c).resources).requests;
      // A zero quantity prints as "0", so upstream only notices a missing `requests` map.
      if (requests === undefined || requests === null) {
        warns.push(
          `unable to find the resource requests for the container: (${str(rec(c).name)}). It is recommended to ensure the resource request for CPU and Memory. Be aware that for some clusters configurations it is required to specify requests or limits for those values. Otherwise, the system or quota may reject Pod creation. More info: https://master.sdk.operatorframework.io/docs/best-practices/managing-resources/`,
        );
      }
    }
  }
  return { errs: [], warns };
}

function crdDescriptions(spec: Record<string, unknown>): string[] {
  const crds = rec(spec.customresourcedefinitions);
  const check = (list: unknown, relation: string) =>
    arr(list)
      .filter((d) => str(rec(d).description) === '')
      .map((d) => `${relation} CRD ${goQuote(str(rec(d).name))} has an empty description`);
  return [...check(crds.owned, 'owned'), ...check(crds.required, 'required')];
}

function channels(bundle: ValidationBundle): string | undefined {
  const unique = [...new Set([...bundle.channels, bundle.defaultChannel].map((c) => c.trim()))];
  const bad = unique.filter(
    (c) => c !== '' && !c.startsWith('candidate') && !c.startsWith('stable') && !c.startsWith('fast'),
  );
  if (bad.length === 0) return undefined;
  return `channel(s) ${goQuoteSlice(bad, true)} are not following the recommended naming convention: https://olm.operatorframework.io/docs/best-practices/channel-naming`;
}

function createsCrds(spec: Record<string, unknown>): boolean {
  const install = rec(rec(spec.install).spec);
  const perms = [...arr(install.permissions), ...arr(install.clusterPermissions)];
  return perms.some((perm) =>
    arr(rec(perm).rules).some((rule) => {
      const r = rec(rule);
      return (
        arr(r.apiGroups).includes('apiextensions.k8s.io') &&
        arr(r.resources).some((res) => ['customresourcedefinitions', '*', '[*]'].includes(str(res))) &&
        arr(r.verbs).some((verb) => ['create', '*', '[*]', 'patch'].includes(str(verb)))
      );
    }),
  );
}

function bundleName(name: string): string[] {
  const warns: string[] = [];
  const match = SEMVER_SUFFIX.exec(name);
  if (match === null || tryParseVersion(match[0]) === undefined) {
    warns.push(
      `csv.metadata.Name ${name} is not following the versioning convention (MAJOR.MINOR.PATCH e.g 0.0.1): https://semver.org/`,
    );
  }
  if (name.split('.v').length !== 2) {
    warns.push(
      `csv.metadata.Name ${name} is not following the recommended naming convention: <operator-name>.v<semver> e.g. memcached-operator.v0.0.1`,
    );
  }
  return warns;
}

/**
 * The `good-practices` validator: deployments and resource requests, CRD descriptions, channel names,
 * permissions to create CRDs, and the CSV name convention. Result named after the bundle.
 */
export function validateGoodPractices(bundle: ValidationBundle): ManifestResult {
  if (bundle.csv === undefined)
    return { name: bundle.name, errors: [errInvalidBundle('Bundle csv is nil', bundle.name)] };
  const spec = rec(bundle.csv.spec);
  const csvName = str(bundle.csv.metadata.name);
  const { errs, warns } = resourceRequests(spec);
  warns.push(...crdDescriptions(spec));
  const channelWarning = channels(bundle);
  if (channelWarning !== undefined) warns.push(channelWarning);
  if (createsCrds(spec)) warns.push(CRD_PERMISSION_WARNING);
  warns.push(...bundleName(csvName));
  return {
    name: bundle.name,
    errors: [
      ...errs.map((e) => errFailedValidation(e, csvName)),
      ...warns.map((w) => warnFailedValidation(w, csvName)),
    ],
  };
}
