// A private npm registry for tests (Verdaccio on loopback, no uplink): seeded from npm's cache with the
// workspace's locked third-party packages, the workspace's own packages published to it.
export { cachedContent, npmCacheDirectory } from './npm-cache.js';
export {
  type NpmRegistry,
  NpmRegistryError,
  type PublishedPackage,
  publishablePackages,
  type StartNpmRegistryOptions,
  startNpmRegistry,
} from './npm-registry.js';
export { MissingCacheEntryError, seedStorage } from './seed-storage.js';
