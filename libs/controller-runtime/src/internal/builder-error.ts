/** A builder was used wrongly: a kind named twice or never, nothing to register. */
export class BuilderError extends Error {
  readonly code = 'RUNTIME_BUILDER_INVALID';
}
