/**
 * What a catalog server loads (`@opkit/olm/registry/server`): the catalog made ready to serve, from its serve
 * cache or, only when there is none, loaded and converted, and the gRPC server over it. A narrower entry point
 * than `@opkit/olm/registry`, whose model builder, CSV synthesis and health client a server started from its
 * cache never runs but, loaded through it, would keep in memory for as long as it serves.
 */
export {
  type RegistryServerOptions,
  type RunningRegistryServer,
  startRegistryServer,
} from './grpc-server.js';
export { type LoadedRegistry, type LoadRegistryOptions, loadRegistry } from './load-registry.js';
