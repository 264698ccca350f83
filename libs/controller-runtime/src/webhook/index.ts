// @opkit/controller-runtime/webhook: admission (defaulting and validating handlers), conversion between API
// versions, the webhook server the manager runs, `webhookManagedBy` to declare a kind's webhooks on it, and the
// schema validator the webhooks check objects against.
export { BuilderError } from '../errors/builder-error.js';
export {
  AdmissionDenied,
  type AdmissionOperation,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type AdmissionStatus,
  type Defaulter,
  defaultingHandler,
  type FieldProblem,
  invalidObject,
  type Validator,
  validatingHandler,
  type Warnings,
} from './admission.js';
export {
  ConversionError,
  type ConversionReview,
  type ConversionSpec,
  Conversions,
  type Spoke,
  stashFields,
  takeStashedFields,
} from './conversion.js';
export { applyJsonPatch, type JsonPatchOperation, jsonPatch } from './json-patch.js';
export { type AnyKindWebhooks, type KindWebhooks, registerWebhooks } from './kind-webhooks.js';
export { BadRequestError } from './request.js';
export { type SchemaProblem, type SchemaValidator, schemaValidator } from './schema-validator.js';
export {
  CONVERSION_PATH,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_WEBHOOK_CERT_PATH,
  DEFAULT_WEBHOOK_PORT,
  type WebhookHandler,
  WebhookServer,
  type WebhookServerOptions,
} from './server.js';
export {
  WebhookBuilder,
  type WebhookHost,
  type WebhookRegistration,
  webhookManagedBy,
  webhookPath,
} from './webhook-builder.js';
