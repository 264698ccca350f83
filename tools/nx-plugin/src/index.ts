// The generators, for use from code (Nx finds them through generators.json).
export { type ApiGeneratorSchema, apiGenerator } from './generators/api/api.js';
export { type OperatorGeneratorSchema, operatorGenerator } from './generators/operator/operator.js';
export { type ApiResource, sampleFile } from './generators/project-index.js';
export { type VersionGeneratorSchema, versionGenerator } from './generators/version/version.js';
export { type WebhookGeneratorSchema, webhookGenerator } from './generators/webhook/webhook.js';
export {
  type KindNames,
  kindNames,
  type OperatorNames,
  operatorNames,
  parseApi,
  pluralize,
} from './names.js';
