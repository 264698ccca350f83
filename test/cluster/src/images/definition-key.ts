import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { PATH_EXCLUDES, PATH_INCLUDES } from './debian-rootfs.js';
import type { ImageDefinition, ImageFile } from './definitions.js';

/** Raised whenever the builder changes what it puts into an image, so cached images are rebuilt. */
export const IMAGE_BUILDER_REVISION = 2;

/** What besides the definition decides an image's content. */
export interface KeyInputs {
  /** Debian release codename. */
  readonly suite: string;
  /** Version apt would install, by package (at least the definition's packages). */
  readonly packageVersions: Readonly<Record<string, string>>;
  /** Content identity of each of the definition's files, by path in the image. */
  readonly fileIdentities: Readonly<Record<string, string>>;
}

/**
 * The cache key of an image: 16 hex digits of a sha256 over the definition (host paths of copied files
 * replaced by their content identity, so moving a checkout does not rebuild), the suite, the versions of its
 * packages, the builder's revision and the dpkg path filters. Key order in objects does not matter.
 *
 * @throws Error when a package version or file identity is missing from `inputs`.
 */
export function definitionKey(definition: ImageDefinition, inputs: KeyInputs): string {
  const files = (definition.files ?? []).map(({ source: _source, identity: _identity, ...file }) => {
    const identity = inputs.fileIdentities[file.path];
    if (identity === undefined) throw new Error(`no identity for ${file.path} of image ${definition.name}`);
    return { ...file, identity };
  });
  const versions = [...definition.packages].sort().map((name) => {
    const version = inputs.packageVersions[name];
    if (version === undefined) throw new Error(`no version for package ${name} of image ${definition.name}`);
    return [name, version];
  });
  const material = canonicalJson({
    revision: IMAGE_BUILDER_REVISION,
    suite: inputs.suite,
    pathFilters: { exclude: PATH_EXCLUDES, include: PATH_INCLUDES },
    definition: { ...definition, files },
    versions,
  });
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

/** JSON with object keys sorted at every level (arrays keep their order), so equal data gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const record = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    );
  });
}

/** A file's identity for {@link definitionKey}: its declared `identity`, or `sha256:<hex>` of its content. */
export async function fileIdentity(file: ImageFile): Promise<string> {
  if (file.identity !== undefined) return file.identity;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file.source)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}
