import { createHash } from 'node:crypto';

const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** The OCI digest (`sha256:<hex>`) of `bytes`. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Whether `value` is a well-formed `sha256:<64 lowercase hex>` digest (the only algorithm this package uses). */
export function isDigest(value: string): boolean {
  return DIGEST.test(value);
}

/** The hex part of a `sha256:` digest, used as the blob file name in an image layout. */
export function digestHex(digest: string): string {
  return digest.slice('sha256:'.length);
}
