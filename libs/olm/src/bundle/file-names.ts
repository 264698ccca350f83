import { CSV_KIND } from '../manifest/cluster-service-version.js';
import { CRD_KIND, groupOf, isRecord, type Manifest, versionOf } from '../manifest/manifest.js';

/**
 * The file name operator-sdk gives a bundle manifest: `<package>.clusterserviceversion.yaml` for the CSV,
 * `<group>_<plural>.yaml` for a CRD, `<name>_<group>_<version>_<kind>.yaml` (group left out for the core
 * group, kind lower-cased) for anything else.
 */
export function manifestFileName(obj: Manifest, packageName: string): string {
  if (obj.kind === CSV_KIND) return `${packageName}.clusterserviceversion.yaml`;
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  if (
    obj.kind === CRD_KIND &&
    typeof spec.group === 'string' &&
    spec.group !== '' &&
    typeof names.plural === 'string' &&
    names.plural !== ''
  ) {
    return `${spec.group}_${names.plural}.yaml`;
  }
  const group = groupOf(obj.apiVersion);
  const version = versionOf(obj.apiVersion);
  const name = obj.metadata.name ?? '';
  return group === ''
    ? `${name}_${version}_${obj.kind.toLowerCase()}.yaml`
    : `${name}_${group}_${version}_${obj.kind.toLowerCase()}.yaml`;
}

/** File names for all manifests, with the SDK's `dup<N>_` prefix on collisions. */
export function manifestFileNames(objects: readonly Manifest[], packageName: string): string[] {
  const seen = new Set<string>();
  let dup = 0;
  return objects.map((obj) => {
    let name = manifestFileName(obj, packageName);
    if (seen.has(name)) {
      name = `dup${dup}_${name}`;
      dup++;
    }
    seen.add(name);
    return name;
  });
}
