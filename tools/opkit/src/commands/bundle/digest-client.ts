import type { RegistryClient } from '@opkit/oci';

/** A registry client for pinning images to digests (`--use-image-digests`); `plainHttp` for a registry on loopback. */
export async function registryClient(plainHttp: boolean): Promise<RegistryClient> {
  const { cliRegistryClient } = await import('../../registry-client.js');
  return cliRegistryClient({ plainHttp });
}
