// The scorecard configuration (`tests/scorecard/config.yaml`, kind Configuration, v1alpha3) and its label
// selector, as operator-sdk scorecard reads them.
import { dirname, join } from 'node:path';
import { resolveWithinRoot } from '@opkit/oci/within-root';
import { BundleDirectory } from '../bundle/bundle-directory.js';
import { BundleFileRefusedError } from '../bundle/bundle-file.js';
import { yamlLibrary } from '../yaml-library.js';

export const SCORECARD_API_VERSION = 'scorecard.operatorframework.io/v1alpha3';
export const TEST_CONFIG_ANNOTATION = 'operators.operatorframework.io.test.config.v1';
export const DEFAULT_CONFIG_DIR = 'tests/scorecard/';

export interface TestConfiguration {
  image: string;
  entrypoint: string[];
  labels: Record<string, string>;
}
export interface StageConfiguration {
  parallel: boolean;
  tests: TestConfiguration[];
}
export interface ScorecardConfiguration {
  stages: StageConfiguration[];
}

/** A config file that is missing or not a scorecard Configuration. */
export class ScorecardConfigError extends Error {
  override name = 'ScorecardConfigError';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a Configuration document; `file` names it in errors. */
export function parseScorecardConfig(text: string, file: string): ScorecardConfiguration {
  let doc: unknown;
  try {
    doc = yamlLibrary().parse(text);
  } catch (e) {
    throw new ScorecardConfigError(`${file}: malformed YAML: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new ScorecardConfigError(`${file}: not a YAML object`);
  if (doc.kind !== 'Configuration')
    throw new ScorecardConfigError(`${file}: kind is ${JSON.stringify(doc.kind)}, want "Configuration"`);
  if (doc.apiVersion !== SCORECARD_API_VERSION)
    throw new ScorecardConfigError(
      `${file}: apiVersion is ${JSON.stringify(doc.apiVersion)}, want "${SCORECARD_API_VERSION}"`,
    );
  const stages = Array.isArray(doc.stages) ? doc.stages : [];
  return {
    stages: stages.map((s, i) => {
      if (!isObject(s)) throw new ScorecardConfigError(`${file}: stages[${i}] is not an object`);
      const tests = Array.isArray(s.tests) ? s.tests : [];
      return {
        parallel: s.parallel === true,
        tests: tests.map((t, j) => {
          const where = `${file}: stages[${i}].tests[${j}]`;
          if (!isObject(t)) throw new ScorecardConfigError(`${where} is not an object`);
          if (!Array.isArray(t.entrypoint) || t.entrypoint.some((e) => typeof e !== 'string'))
            throw new ScorecardConfigError(`${where}.entrypoint is not a list of strings`);
          const labels = isObject(t.labels) ? t.labels : {};
          return {
            image: typeof t.image === 'string' ? t.image : '',
            entrypoint: t.entrypoint as string[],
            labels: Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)])),
          };
        }),
      };
    }),
  };
}

/** The config of the bundle in `dir`: `--config` if given, else the annotation's directory + config.yaml. */
export function readScorecardConfig(dir: string, override?: string): ScorecardConfiguration {
  const bundle = new BundleDirectory(dir);
  let file = override;
  if (file === undefined) {
    let configDir = DEFAULT_CONFIG_DIR;
    // Only the config annotation, read leniently as operator-sdk does: a bundle the loader would refuse (no
    // annotations file, keys missing) still has its tests run from the default place.
    try {
      const read = bundle.readAnnotations(join(dir, 'metadata', 'annotations.yaml'));
      const annotated = read.ok ? read.annotations?.[TEST_CONFIG_ANNOTATION] : undefined;
      if (annotated !== undefined && annotated !== '') configDir = annotated;
    } catch (error) {
      if (error instanceof BundleFileRefusedError) throw error;
      // No annotations file: the default location, as operator-sdk does.
    }
    // The annotation comes with the bundle: it may name a place in it, never one beside it (`../../..`).
    if (resolveWithinRoot(dir, configDir) === undefined) {
      throw new ScorecardConfigError(
        `${dir}: the scorecard config directory ${JSON.stringify(configDir)} (${TEST_CONFIG_ANNOTATION}) leads out of the bundle`,
      );
    }
    file = join(dir, configDir, 'config.yaml');
  }
  let text: string;
  try {
    // The bundle's own config is read within the bundle; one given with --config is the user's own file.
    text = override === undefined ? bundle.readText(file) : bundle.readText(file, dirname(file));
  } catch (error) {
    if (error instanceof BundleFileRefusedError) throw error;
    throw new ScorecardConfigError(
      `${file}: no scorecard config (pass --config or add tests/scorecard/config.yaml)`,
    );
  }
  return parseScorecardConfig(text, file);
}

/** A label selector (`suite=basic`, `test!=x`, `suite in (basic,olm)`, `key`, `!key`, comma = and). */
export function matchesSelector(selector: string, labels: Record<string, string>): boolean {
  const terms = selector.match(/[^,()]+(\([^)]*\))?/g) ?? [];
  return terms.every((raw) => {
    const term = raw.trim();
    if (term === '') return true;
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (set !== null) {
      const values = (set[3] ?? '').split(',').map((v) => v.trim());
      const has = labels[set[1] ?? ''] !== undefined && values.includes(labels[set[1] ?? ''] ?? '');
      return set[2] === 'in' ? has : !has;
    }
    const op = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (op !== null) {
      const value = labels[op[1] ?? ''];
      return op[2] === '!=' ? value !== op[3] : value === op[3];
    }
    if (term.startsWith('!')) return labels[term.slice(1)] === undefined;
    return labels[term] !== undefined;
  });
}
