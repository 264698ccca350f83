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
export type { AnyKindWebhooks, KindWebhooks } from './kind-webhooks.js';
export { BadRequestError } from './request.js';
export {
  CONVERSION_PATH,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_WEBHOOK_CERT_DIR,
  DEFAULT_WEBHOOK_PORT,
  type WebhookHandler,
  WebhookServer,
  type WebhookServerOptions,
} from './server.js';
