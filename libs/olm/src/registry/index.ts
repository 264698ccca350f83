/**
 * OLM's registry gRPC API (`api.Registry` + `grpc.health.v1.Health`) over a file-based catalog, as `opm serve`
 * serves it (operator-registry v1.73.0): the serving view of a catalog's model (`buildRegistryModel`), the query
 * semantics and error messages (`RegistryQueries`), a gRPC server (`startRegistryServer`), and the serve cache
 * `loadRegistry` starts from (`serve-cache.ts`, in its own format, not opm's).
 *
 * Deliberate differences from opm: results opm produces in Go map order (streams, `GetBundleThatReplaces`)
 * come in name order; a synthesized CSV (from `olm.csv.metadata`) keeps the metadata's own key order inside
 * its values; no gRPC reflection and no ExperimentalRegistry service.
 */
export type * from './api.js';
export { ServingStatus } from './api.js';
export { type CsvSynthesisInput, csvJsonFromMetadata } from './csv-from-metadata.js';
export { RegistryError, type RegistryErrorCode, RegistryQueryError } from './errors.js';
export {
  healthService,
  type RegistryServerOptions,
  type RunningRegistryServer,
  registryService,
  startRegistryServer,
} from './grpc-server.js';
export { checkHealth, waitForServing } from './health-client.js';
export { type LoadedRegistry, type LoadRegistryOptions, loadRegistry } from './load-registry.js';
export { RegistryQueries } from './queries.js';
export {
  type BuildRegistryModelOptions,
  buildRegistryModel,
  type RegistryChannel,
  type RegistryEntry,
  type RegistryModel,
  type RegistryPackage,
} from './registry-model.js';
export { catalogDigest, SERVE_CACHE_FILE, type ServeCacheKey } from './serve-cache.js';
