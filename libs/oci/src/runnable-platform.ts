// Which platform entries of an image index name a platform an image runs on. Its own subpath, so validators
// that only read platforms do not load the registry client.

/**
 * Not an attestation's `unknown/unknown`, nor a platform with an empty os or architecture: the entries an
 * index reader lists, and the ones a bundle's multiarch validator weighs.
 */
export function isRunnablePlatform(platform: {
  readonly os: string;
  readonly architecture: string;
}): boolean {
  return ![platform.os, platform.architecture].some((part) => part === '' || part === 'unknown');
}
