/**
 * A builder was used wrongly: a kind named twice or never, nothing to register. Thrown by the controller builder
 * and the webhook builder alike, and exported by `/controller` and `/webhook` both.
 */
export class BuilderError extends Error {
  readonly code = 'RUNTIME_BUILDER_INVALID';
}
