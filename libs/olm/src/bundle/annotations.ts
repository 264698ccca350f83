import { byteOrder } from '../go-compat/go-format.js';
import { yamlLibrary } from '../yaml-library.js';

/** Annotation (and image label) keys of a registry+v1 bundle. */
export const BundleAnnotation = {
  mediaType: 'operators.operatorframework.io.bundle.mediatype.v1',
  manifests: 'operators.operatorframework.io.bundle.manifests.v1',
  metadata: 'operators.operatorframework.io.bundle.metadata.v1',
  packageName: 'operators.operatorframework.io.bundle.package.v1',
  channels: 'operators.operatorframework.io.bundle.channels.v1',
  defaultChannel: 'operators.operatorframework.io.bundle.channel.default.v1',
  testMediaType: 'operators.operatorframework.io.test.mediatype.v1',
  testConfig: 'operators.operatorframework.io.test.config.v1',
} as const;

/** Media type of a registry+v1 bundle. */
export const REGISTRY_V1 = 'registry+v1';

/** What goes into `metadata/annotations.yaml` and the bundle image labels. */
export interface BundleMetadata {
  readonly packageName: string;
  readonly channels: readonly string[];
  readonly defaultChannel?: string;
  /** Extra labels (e.g. the SDK's `operators.operatorframework.io.metrics.*`), written after the channels. */
  readonly otherLabels?: Readonly<Record<string, string>>;
  /** True when `tests/scorecard/config.yaml` is part of the bundle. */
  readonly scorecard?: boolean;
}

/** The other labels in the SDK's order: sorted by their `key=value` text. */
function sortedOtherLabels(meta: BundleMetadata): [string, string][] {
  return Object.entries(meta.otherLabels ?? {}).sort(([ka, va], [kb, vb]) =>
    byteOrder(`${ka}=${va}`, `${kb}=${vb}`),
  );
}

/** The annotations of a bundle, in the order the SDK writes them. */
export function bundleAnnotations(meta: BundleMetadata): Record<string, string> {
  const out: Record<string, string> = {
    [BundleAnnotation.mediaType]: REGISTRY_V1,
    [BundleAnnotation.manifests]: 'manifests/',
    [BundleAnnotation.metadata]: 'metadata/',
    [BundleAnnotation.packageName]: meta.packageName,
    [BundleAnnotation.channels]: meta.channels.join(','),
  };
  if (meta.defaultChannel !== undefined && meta.defaultChannel !== '') {
    out[BundleAnnotation.defaultChannel] = meta.defaultChannel;
  }
  for (const [key, value] of sortedOtherLabels(meta)) out[key] = value;
  if (meta.scorecard === true) {
    out[BundleAnnotation.testMediaType] = 'scorecard+v1';
    out[BundleAnnotation.testConfig] = 'tests/scorecard/';
  }
  return out;
}

/** A `key: value` YAML line for a scalar (quoted only when plain text would be misread). */
function yamlEntry(key: string, value: string): string {
  return yamlLibrary()
    .stringify({ [key]: value }, { version: '1.1', lineWidth: 0 })
    .trimEnd();
}

/** `metadata/annotations.yaml` byte for byte as `operator-sdk generate bundle` writes it (olm.md §1.3). */
export function renderAnnotationsYaml(meta: BundleMetadata): string {
  const lines = [
    'annotations:',
    '  # Core bundle annotations.',
    `  ${yamlEntry(BundleAnnotation.mediaType, REGISTRY_V1)}`,
    `  ${yamlEntry(BundleAnnotation.manifests, 'manifests/')}`,
    `  ${yamlEntry(BundleAnnotation.metadata, 'metadata/')}`,
    `  ${yamlEntry(BundleAnnotation.packageName, meta.packageName)}`,
    `  ${yamlEntry(BundleAnnotation.channels, meta.channels.join(','))}`,
  ];
  if (meta.defaultChannel !== undefined && meta.defaultChannel !== '') {
    lines.push(`  ${yamlEntry(BundleAnnotation.defaultChannel, meta.defaultChannel)}`);
  }
  for (const [key, value] of sortedOtherLabels(meta)) lines.push(`  ${yamlEntry(key, value)}`);
  if (meta.scorecard === true) {
    lines.push(
      '',
      '  # Annotations for testing.',
      `  ${BundleAnnotation.testMediaType}: scorecard+v1`,
      `  ${BundleAnnotation.testConfig}: tests/scorecard/`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `bundle.Dockerfile` as the SDK writes it (olm.md §1.4), with `COPY` sources relative to `bundleDir`
 * (`.` when the Dockerfile sits in the bundle directory itself, as {@link writeBundle} puts it).
 */
export function renderBundleDockerfile(meta: BundleMetadata, bundleDir = '.'): string {
  const prefix = bundleDir === '.' || bundleDir === '' ? '' : `${bundleDir.replace(/\/+$/, '')}/`;
  const lines = [
    'FROM scratch',
    '',
    '# Core bundle labels.',
    `LABEL ${BundleAnnotation.mediaType}=${REGISTRY_V1}`,
    `LABEL ${BundleAnnotation.manifests}=manifests/`,
    `LABEL ${BundleAnnotation.metadata}=metadata/`,
    `LABEL ${BundleAnnotation.packageName}=${meta.packageName}`,
    `LABEL ${BundleAnnotation.channels}=${meta.channels.join(',')}`,
  ];
  if (meta.defaultChannel !== undefined && meta.defaultChannel !== '') {
    lines.push(`LABEL ${BundleAnnotation.defaultChannel}=${meta.defaultChannel}`);
  }
  for (const [key, value] of sortedOtherLabels(meta)) lines.push(`LABEL ${key}=${value}`);
  if (meta.scorecard === true) {
    lines.push(
      '',
      '# Labels for testing.',
      `LABEL ${BundleAnnotation.testMediaType}=scorecard+v1`,
      `LABEL ${BundleAnnotation.testConfig}=tests/scorecard/`,
    );
  }
  lines.push('', '# Copy files to locations specified by labels.');
  lines.push(`COPY ${prefix}manifests /manifests/`, `COPY ${prefix}metadata /metadata/`);
  if (meta.scorecard === true) lines.push(`COPY ${prefix}tests/scorecard /tests/scorecard/`);
  return `${lines.join('\n')}\n`;
}
