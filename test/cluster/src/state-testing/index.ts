export { awaitConvergence, type ConvergenceCheck, describeWrites } from './convergence.js';
export type { FieldHint, FieldHints } from './hints.js';
export { formatPath, type Json, jsonEqual, type Path } from './json-path.js';
export { isQuantitySchema, type OpenApiSchema, type SchemaCrd, specSchemaOf } from './openapi.js';
export {
  quantitiesEqual,
  quantityCeilIn,
  quantityMillis,
  quantitySpellings,
  resourceListDifferences,
} from './quantity.js';
export { type Random, seededRandom } from './random.js';
export {
  type LiveObject,
  type Oracle,
  type OracleContext,
  type Readiness,
  replaceSpec,
  runStateTest,
  StateTestFailure,
  type StateTestOptions,
  type StateTestReport,
  type StepFailure,
} from './runner.js';
export { shrinkSequence } from './shrink.js';
export { generateSteps, type Step, type StepGeneratorOptions } from './steps.js';
export { collectionPath, type ResourceType, type SeenWrite, WriteWatch } from './write-watch.js';
