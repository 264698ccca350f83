import { celCheck } from '../cel/cel-check.js';
import { crdSafetyCheck } from '../crd-safety/crd-safety-check.js';
import { diffCheck } from '../diff/diff-check.js';
import { permissionCheck } from '../permissions/permission-check.js';
import { upgradePathCheck } from '../upgrade-paths/upgrade-path-check.js';
import type { ReleaseCheck } from './release-check.js';

/** Every check family `opkit catalog check` runs, one line each. */
export const defaultReleaseChecks: readonly ReleaseCheck[] = [
  diffCheck,
  upgradePathCheck,
  crdSafetyCheck,
  celCheck,
  permissionCheck,
];
