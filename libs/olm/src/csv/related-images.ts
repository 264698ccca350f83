import type { RelatedImage } from '../manifest/cluster-service-version.js';
import { isRecord, type Manifest } from '../manifest/manifest.js';
import { CsvError } from './errors.js';

const PREFIX = 'RELATED_IMAGE_';

interface Found {
  name: string;
  image: string;
  owner: string;
}

function containersOf(deployment: Manifest, init: boolean): Record<string, unknown>[] {
  const spec = isRecord(deployment.spec) ? deployment.spec : {};
  const template = isRecord(spec.template) ? spec.template : {};
  const podSpec = isRecord(template.spec) ? template.spec : {};
  const list = init ? podSpec.initContainers : podSpec.containers;
  return (Array.isArray(list) ? list : []).filter(isRecord);
}

/**
 * `spec.relatedImages` as `operator-sdk generate bundle` derives them from `RELATED_IMAGE_*` environment
 * variables of the deployments' containers and init containers (`RELATED_IMAGE_FOO_BAR` → `foo-bar`), plus the
 * image of every (non-init) container under the container's name — the operator image itself. A name used for
 * two images is prefixed with `<deployment>-<container>-`; an image found under several names is listed once.
 *
 * @throws {CsvError} `OLM_CSV_INPUT_INVALID` for a `RELATED_IMAGE_*` variable set through `valueFrom`.
 */
export function collectRelatedImages(deployments: readonly Manifest[]): {
  images: RelatedImage[];
  warnings: string[];
} {
  const found: Found[] = [];
  for (const dep of deployments) {
    const depName = dep.metadata.name ?? '';
    for (const init of [false, true]) {
      for (const c of containersOf(dep, init)) {
        const cName = typeof c.name === 'string' ? c.name : '';
        for (const env of (Array.isArray(c.env) ? c.env : []).filter(isRecord)) {
          const name = typeof env.name === 'string' ? env.name : '';
          if (!name.startsWith(PREFIX)) continue;
          if (env.valueFrom !== undefined) {
            throw new CsvError(
              'OLM_CSV_INPUT_INVALID',
              `related images with valueFrom field unsupported, found in deployment ${depName}, container ${cName}`,
            );
          }
          const image = typeof env.value === 'string' ? env.value : '';
          found.push({
            name: name.slice(PREFIX.length).toLowerCase().replaceAll('_', '-'),
            image,
            owner: `${depName}-${cName}`,
          });
        }
      }
    }
  }
  for (const dep of deployments) {
    for (const c of containersOf(dep, false)) {
      if (typeof c.image === 'string' && c.image !== '') {
        found.push({
          name: String(c.name ?? ''),
          image: c.image,
          owner: `${dep.metadata.name ?? ''}-${String(c.name ?? '')}`,
        });
      }
    }
  }
  const warnings: string[] = [];
  const images: RelatedImage[] = [];
  const byImage = new Map<string, RelatedImage>();
  const byName = new Map<string, string>();
  for (const f of found) {
    const existing = byImage.get(f.image);
    if (existing !== undefined) {
      if (existing.name !== f.name && f.name !== '') {
        warnings.push(
          `image ${f.image} is referenced as ${JSON.stringify(existing.name)} and ${JSON.stringify(f.name)}; listed once`,
        );
      }
      continue;
    }
    let name = f.name;
    if (byName.has(name) && byName.get(name) !== f.image) name = `${f.owner}-${name}`;
    const entry = { name, image: f.image };
    byImage.set(f.image, entry);
    byName.set(name, f.image);
    images.push(entry);
  }
  return { images, warnings };
}

/**
 * Merges generated related images into the base's hand-written list: the base entries stay as written, and a
 * generated entry is added unless its image is already listed or its name is taken.
 */
export function mergeRelatedImages(
  base: readonly RelatedImage[],
  generated: readonly RelatedImage[],
): { images: RelatedImage[]; warnings: string[] } {
  const images = base.map((i) => ({ ...i }));
  const warnings: string[] = [];
  for (const g of generated) {
    if (images.some((i) => i.image === g.image)) continue;
    if (images.some((i) => i.name === g.name)) {
      warnings.push(
        `related image ${JSON.stringify(g.name)} (${g.image}) conflicts with the base CSV's entry of that name; the base wins`,
      );
      continue;
    }
    images.push({ ...g });
  }
  return { images, warnings };
}
