import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleImage, writeLayout } from '@opkit/oci';
import {
  findBaseCsv,
  formatJsonAlpha1,
  formatText,
  generateCsv,
  type KubeObject,
  loadBundle,
  validateBundleDir,
  writeBundle,
} from '@opkit/olm';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { CliError } from '../cli-error.js';
import { buildBundles } from '../pipelines/build-bundles.js';

/** Renders an operator's `config/manifests` with kustomize (through kubectl) into objects. */
export function renderOperatorManifests(operatorDir: string): KubeObject[] {
  const dir = join(operatorDir, 'config', 'manifests');
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error)
    throw new CliError(
      'OPKIT_KUBECTL_MISSING',
      `kubectl could not run (${result.error.message}): install kubectl`,
    );
  if (result.status !== 0) {
    throw new CliError(
      'OPKIT_KUSTOMIZE_FAILED',
      `${dir}: kustomize failed: ${result.stderr.trim().split('\n').pop()}`,
    );
  }
  return parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => Boolean(o));
}

export interface GenerateBundleOptions {
  readonly operatorDir: string;
  readonly packageName: string;
  readonly version: string;
  readonly outDir: string;
  readonly channels: readonly string[];
  readonly defaultChannel?: string;
  readonly replaces?: string;
  readonly operatorImage?: string;
}

/** `operator-sdk generate bundle`: CSV from the base CSV and the operator's manifests, then the bundle directory. */
export async function generateBundle(o: GenerateBundleOptions): Promise<string> {
  const objects = renderOperatorManifests(o.operatorDir).map((obj) =>
    o.operatorImage ? withOperatorImage(obj, o.operatorImage) : obj,
  );
  const base = findBaseCsv(objects, o.packageName);
  const { csv, manifests } = generateCsv({
    base,
    packageName: o.packageName,
    objects: objects.filter((obj) => obj.kind !== 'ClusterServiceVersion'),
    version: o.version,
    replaces: o.replaces ? `${o.packageName}.v${o.replaces}` : null,
    operatorImage: o.operatorImage,
  });
  const written = await writeBundle(o.outDir, {
    packageName: o.packageName,
    channels: o.channels,
    defaultChannel: o.defaultChannel ?? o.channels[0],
    csv,
    objects: manifests,
  });
  return written.dir;
}

/** Points the manager Deployment at the operator image (kustomize leaves the `controller` placeholder). */
function withOperatorImage(obj: KubeObject, image: string): KubeObject {
  if (obj.kind !== 'Deployment') return obj;
  const text = JSON.stringify(obj).replaceAll('"controller:latest"', JSON.stringify(image));
  return JSON.parse(text) as KubeObject;
}

/** The bundle's image labels: its `metadata/annotations.yaml`. */
export function bundleLabels(dir: string): Record<string, string> {
  const file = join(dir, 'metadata', 'annotations.yaml');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CliError('OPKIT_BUNDLE_INVALID', `${file}: missing (a bundle needs metadata/annotations.yaml)`);
  }
  const doc = parseAllDocuments(text)[0]?.toJS() as { annotations?: Record<string, string> } | undefined;
  if (!doc?.annotations) throw new CliError('OPKIT_BUNDLE_INVALID', `${file}: annotations: missing`);
  return doc.annotations;
}

export function registerBundleCommands(program: Command): void {
  const bundle = program.command('bundle').description('Generate, validate and image registry+v1 bundles.');
  bundle
    .command('build-all')
    .description('Generate every operator’s current bundle, validate all bundles and build their images.')
    .option('--operators <dir>', 'operator projects (with an `opkit` field in package.json)', 'operators')
    .option('--bundles <dir>', 'bundles, as <package>/<version>/', 'bundles')
    .option('--images <dir>', 'where the OCI image layouts go', 'dist/images')
    .action(async (opts: { operators: string; bundles: string; images: string }) => {
      await buildBundles({
        operatorsDir: opts.operators,
        bundlesDir: opts.bundles,
        imagesDir: opts.images,
        log: (line) => process.stdout.write(`${line}\n`),
      });
    });
  bundle
    .command('generate')
    .description('Generate a bundle (CSV, CRDs, metadata) from an operator’s config/manifests.')
    .requiredOption('--operator <dir>', 'operator project directory (with config/manifests)')
    .requiredOption('--package <name>', 'OLM package name, e.g. memcached-operator')
    .requiredOption('--version <semver>', 'bundle version')
    .requiredOption('--out <dir>', 'bundle directory to write (replaced atomically)')
    .option('--channels <list>', 'comma-separated channels', 'alpha')
    .option('--default-channel <name>', 'default channel (default: the first channel)')
    .option('--replaces <semver>', 'version this bundle replaces')
    .option('--image <ref>', 'operator image')
    .action(async (opts) => {
      const dir = await generateBundle({
        operatorDir: resolve(opts.operator),
        packageName: opts.package,
        version: opts.version,
        outDir: resolve(opts.out),
        channels: String(opts.channels).split(','),
        defaultChannel: opts.defaultChannel,
        replaces: opts.replaces,
        operatorImage: opts.image,
      });
      process.stdout.write(`wrote bundle ${dir}\n`);
    });
  bundle
    .command('validate <dir>')
    .description(
      'Validate a bundle as `operator-sdk bundle validate` does (errors and warnings, same messages).',
    )
    .option('--output <format>', 'text or json (operator-sdk’s json-alpha1)', 'text')
    .option('--select-optional <selector>', 'also run optional validators, e.g. name=operatorhub')
    .action((dir: string, opts: { output: string; selectOptional?: string }) => {
      const report = validateBundleDir(dir, { selectOptional: opts.selectOptional });
      process.stdout.write(opts.output === 'json' ? formatJsonAlpha1(report) : formatText(report));
      if (!report.passed) process.exitCode = 1;
    });
  bundle
    .command('image <dir>')
    .description(
      'Build the bundle image (FROM scratch, bundle labels) as an OCI image layout, without Docker.',
    )
    .requiredOption('--layout <dir>', 'OCI layout directory to write')
    .option('--tag <tag>', 'tag inside the layout', 'latest')
    .action(async (dir: string, opts: { layout: string; tag: string }) => {
      loadBundle(dir); // precise errors for a malformed bundle before anything is written
      const image = await bundleImage(dir, bundleLabels(dir));
      await writeLayout(opts.layout, [{ image, tag: opts.tag }]);
      process.stdout.write(`${image.digest} ${opts.layout}:${opts.tag}\n`);
    });
}
