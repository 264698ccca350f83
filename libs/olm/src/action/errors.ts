/**
 * A failure of an action that its caller can act on: a stable `code` (`OPKIT_…`) and one line naming the
 * file, field or flag and the reason. The CLI prints it as it is; other callers match on the code.
 */
export class ActionError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ActionError';
    this.code = code;
  }
}
