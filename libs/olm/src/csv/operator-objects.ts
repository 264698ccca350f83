import { CSV_KIND } from '../manifest/cluster-service-version.js';
import { CRD_KIND, deepCopy, groupOf, isRecord, type Manifest, versionOf } from '../manifest/manifest.js';

const WATCH_NAMESPACE = 'WATCH_NAMESPACE';
const TARGET_NAMESPACES_REF = "metadata.annotations['olm.targetNamespaces']";

/** The rendered operator objects, classified into what a CSV is generated from. */
export interface OperatorObjects {
  /** Every object except ClusterServiceVersions. */
  readonly objects: readonly Manifest[];
  /** Copies of the `apps` Deployments, prepared to run under OLM (see {@link prepareDeployment}). */
  readonly deployments: readonly Manifest[];
  readonly crds: readonly Manifest[];
  /** Custom resources of a kind one of the CRDs serves: the `alm-examples`. */
  readonly samples: readonly Manifest[];
  readonly isSample: (object: Manifest) => boolean;
  /** The deployments' service accounts (`default` when unset), then the extra ones. */
  readonly serviceAccounts: ReadonlySet<string>;
}

/** Classifies the rendered objects; `operatorImage` replaces the manager container's image. */
export function classifyOperatorObjects(
  rendered: readonly Manifest[],
  operatorImage: string | undefined,
  extraServiceAccounts: readonly string[],
): OperatorObjects {
  const objects = rendered.filter((o) => o.kind !== CSV_KIND);
  const deployments = objects
    .filter(isAppsDeployment)
    .map((d, i) => prepareDeployment(d, operatorImage, i === 0));
  const crds = objects.filter((o) => o.kind === CRD_KIND);
  const served = servedKinds(crds);
  const isSample = (o: Manifest) =>
    served.has(`${groupOf(o.apiVersion)}/${versionOf(o.apiVersion)}/${o.kind}`);
  const serviceAccounts = new Set([...deployments.map(serviceAccountOf), ...extraServiceAccounts]);
  return { objects, deployments, crds, samples: objects.filter(isSample), isSample, serviceAccounts };
}

function podSpecOf(deployment: Manifest): Record<string, unknown> {
  const spec = isRecord(deployment.spec) ? deployment.spec : {};
  const template = isRecord(spec.template) ? spec.template : {};
  return isRecord(template.spec) ? template.spec : {};
}

function containersOf(deployment: Manifest): Record<string, unknown>[] {
  const list = podSpecOf(deployment).containers;
  return (Array.isArray(list) ? list : []).filter(isRecord);
}

/** The container that runs the operator: the one named `manager`, else the first of the first deployment. */
function managerContainer(deployment: Manifest, first: boolean): Record<string, unknown> | undefined {
  const containers = containersOf(deployment);
  return containers.find((c) => c.name === 'manager') ?? (first ? containers[0] : undefined);
}

const isAppsDeployment = (o: Manifest): boolean =>
  o.kind === 'Deployment' && groupOf(o.apiVersion) === 'apps';

/**
 * The images the rendered manager containers name (kustomize's `controller:latest` placeholder, as a rule):
 * what the `operatorImage` of a generated CSV replaces, so nothing to resolve or pin beforehand.
 */
export function managerImages(rendered: readonly Manifest[]): string[] {
  return rendered
    .filter(isAppsDeployment)
    .map((d, i) => managerContainer(d, i === 0)?.image)
    .filter((image): image is string => typeof image === 'string');
}

/**
 * A copy of the deployment with the operator image on its manager container and `WATCH_NAMESPACE` read from
 * the namespaces OLM targets.
 */
function prepareDeployment(dep: Manifest, operatorImage: string | undefined, first: boolean): Manifest {
  const copy = deepCopy(dep);
  const containers = containersOf(copy);
  if (operatorImage !== undefined) {
    const manager = managerContainer(copy, first);
    if (manager !== undefined) manager.image = operatorImage;
  }
  for (const c of containers) {
    if (!Array.isArray(c.env)) continue;
    c.env = c.env.map((env: unknown) =>
      isRecord(env) && env.name === WATCH_NAMESPACE
        ? { name: WATCH_NAMESPACE, valueFrom: { fieldRef: { fieldPath: TARGET_NAMESPACES_REF } } }
        : env,
    );
  }
  return copy;
}

/** `group/version/kind` of every version the CRDs serve (`spec.versions`, and the legacy `spec.version`). */
function servedKinds(crds: readonly Manifest[]): Set<string> {
  const served = new Set<string>();
  for (const crd of crds) {
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const kind = isRecord(spec.names) ? String(spec.names.kind ?? '') : '';
    const versions = Array.isArray(spec.versions)
      ? spec.versions.filter(isRecord).map((v) => String(v.name ?? ''))
      : [];
    if (typeof spec.version === 'string') versions.push(spec.version);
    for (const v of versions) served.add(`${String(spec.group ?? '')}/${v}/${kind}`);
  }
  return served;
}

function serviceAccountOf(deployment: Manifest): string {
  const name = podSpecOf(deployment).serviceAccountName;
  return typeof name === 'string' && name !== '' ? name : 'default';
}
