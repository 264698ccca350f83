import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readYamlStream } from '../bundle/yaml.js';
import { kustomizeBaseCsv, manifestsKustomization } from '../csv/kustomize-base.js';
import { packageNameOf } from '../manifest/cluster-service-version.js';
import type { Manifest } from '../manifest/manifest.js';
import { ActionError } from './errors.js';
import { checkPackageName } from './package-name.js';

export interface KustomizeManifestsOptions {
  /** The operator project (with package.json and config/). */
  readonly projectDir: string;
  /** The package name; by default the `opkit.package` field of the project's package.json. */
  readonly packageName?: string;
  /** Where an existing base is read from (`<dir>/bases/`); by default `<project>/config/manifests`. */
  readonly inputDir?: string;
  /** Where the base and kustomization are written; by default `<project>/config/manifests`. */
  readonly outputDir?: string;
}

/** The files written, relative to the current directory, and whether each changed. */
export interface KustomizeManifestsResult {
  readonly files: readonly { path: string; changed: boolean }[];
}

const CSV_SUFFIX = '.clusterserviceversion.yaml';

function projectPackageJson(projectDir: string): { description?: unknown; opkit?: { package?: unknown } } {
  const file = join(projectDir, 'package.json');
  if (!existsSync(projectDir) || !statSync(projectDir).isDirectory())
    throw new ActionError('OPKIT_ARGUMENT_INVALID', `--project ${projectDir}: no such directory`);
  if (!existsSync(file))
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `--project ${projectDir}: no package.json, not an opkit project`,
    );
  return JSON.parse(readFileSync(file, 'utf8')) as { description?: unknown; opkit?: { package?: unknown } };
}

/** The CRDs the project's schemas generate, from `config/crd/bases/`. */
function projectCrds(projectDir: string): Manifest[] {
  const dir = join(projectDir, 'config', 'crd', 'bases');
  if (!existsSync(dir))
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${dir}: no generated CRDs (run the project's manifests target first), not an opkit project`,
    );
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .flatMap((f) => readYamlFile(join(dir, f)) as (Manifest | null)[])
    .filter((o): o is Manifest => o !== null && o.kind === 'CustomResourceDefinition');
}

/** The documents of a YAML file of the project, read within the bundle reader's limits. */
function readYamlFile(file: string, text = readFileSync(file, 'utf8')): unknown[] {
  try {
    return readYamlStream(text);
  } catch (error) {
    throw new ActionError('OPKIT_YAML_INVALID', `${file}: ${(error as Error).message}`);
  }
}

/** Writes `file` only when its text differs; reports whether it did. */
function writeIfChanged(file: string, text: string): boolean {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return false;
  writeFileSync(file, text);
  return true;
}

/**
 * `operator-sdk generate kustomize manifests` for an opkit project: the base CSV
 * `<output>/bases/<package>.clusterserviceversion.yaml` with the owned CRDs of `config/crd/bases/` (kept
 * hand edits, see `kustomizeBaseCsv`), and `<output>/kustomization.yaml` when there is none yet.
 */
export function generateKustomizeManifests(o: KustomizeManifestsOptions): KustomizeManifestsResult {
  const pkg = projectPackageJson(o.projectDir);
  const manifestsDir = join(o.projectDir, 'config', 'manifests');
  const inputDir = o.inputDir ?? manifestsDir;
  const outputDir = o.outputDir ?? manifestsDir;
  const packageName =
    o.packageName ?? (typeof pkg.opkit?.package === 'string' ? pkg.opkit.package : undefined);
  if (packageName === undefined)
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${join(o.projectDir, 'package.json')}: no opkit.package field; pass --package <name>`,
    );
  checkPackageName(packageName);
  for (const dir of [outputDir, join(outputDir, 'bases')]) {
    if (existsSync(dir) && !statSync(dir).isDirectory())
      throw new ActionError(
        'OPKIT_ARGUMENT_INVALID',
        `--output-dir ${outputDir}: ${dir} is a file, not a directory`,
      );
  }

  const basesIn = join(inputDir, 'bases');
  const existingBases = existsSync(basesIn) ? readdirSync(basesIn).filter((f) => f.endsWith(CSV_SUFFIX)) : [];
  const inputFile = join(basesIn, `${packageName}${CSV_SUFFIX}`);
  let existing: string | undefined;
  if (existsSync(inputFile)) {
    existing = readFileSync(inputFile, 'utf8');
    const name = (readYamlFile(inputFile, existing)[0] as { metadata?: { name?: unknown } } | undefined)
      ?.metadata?.name;
    const basePackage = typeof name === 'string' ? packageNameOf(name) : undefined;
    if (basePackage !== packageName)
      throw new ActionError(
        'OPKIT_PACKAGE_MISMATCH',
        `--package ${packageName} does not match ${inputFile} (metadata.name ${JSON.stringify(name)}, package ${basePackage ?? 'none'})`,
      );
  } else if (existingBases[0] !== undefined) {
    const other = existingBases[0].slice(0, -CSV_SUFFIX.length);
    throw new ActionError(
      'OPKIT_PACKAGE_MISMATCH',
      `--package ${packageName} does not match the base CSV ${join(basesIn, existingBases[0])} (package ${other})`,
    );
  }

  const description = typeof pkg.description === 'string' ? pkg.description.trim() : '';
  if (existing === undefined && description === '')
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${join(o.projectDir, 'package.json')}: no description for the new base CSV's spec.description; add one`,
    );
  let csv: string;
  try {
    csv = kustomizeBaseCsv(projectCrds(o.projectDir), existing, packageName, { description });
  } catch (error) {
    if (error instanceof ActionError) throw error;
    throw new ActionError('OPKIT_CSV_INVALID', `${inputFile}: ${(error as Error).message}`, { cause: error });
  }

  mkdirSync(join(outputDir, 'bases'), { recursive: true });
  const csvFile = join(outputDir, 'bases', `${packageName}${CSV_SUFFIX}`);
  const files = [{ path: relative(process.cwd(), csvFile), changed: writeIfChanged(csvFile, csv) }];
  const kustomization = join(outputDir, 'kustomization.yaml');
  if (!existsSync(kustomization)) {
    const parts = ['default', 'samples']
      .map((d) => join(o.projectDir, 'config', d))
      .filter((d) => existsSync(d))
      .map((d) => relative(outputDir, d).split(sep).join('/'));
    writeFileSync(kustomization, manifestsKustomization(packageName, parts));
    files.push({ path: relative(process.cwd(), kustomization), changed: true });
  }
  return { files };
}
