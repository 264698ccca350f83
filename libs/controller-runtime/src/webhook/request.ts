/** A request the webhook cannot act on (not JSON, not a review, a field of the wrong type): answered with 400. */
export class BadRequestError extends Error {
  readonly code = 'RUNTIME_WEBHOOK_BAD_REQUEST';
  constructor(message: string) {
    super(message);
    this.name = 'BadRequestError';
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
