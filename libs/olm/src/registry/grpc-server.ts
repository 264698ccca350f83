import type { AddressInfo } from 'node:net';
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  createBoundedSocketServer,
  type ServerLimits,
  serverLimits,
} from '@opkit/controller-runtime/serving';
import type {
  GetAllReplacementsRequest,
  GetBundleInChannelRequest,
  GetBundleRequest,
  GetPackageRequest,
  GetReplacementRequest,
  HealthCheckResponse,
  ProvidersRequest,
} from './api.js';
import { withManifestsRead } from './bundle-manifests.js';
import { RegistryError, RegistryQueryError } from './errors.js';
import * as M from './messages.js';
import type { RegistryQueries } from './queries.js';
import { decodeMessage, encodeMessage, type MessageSchema } from './wire.js';

type Method = ServiceDefinition[string];

function method(
  service: string,
  name: string,
  req: MessageSchema,
  res: MessageSchema,
  streaming: boolean,
): Method {
  return {
    path: `/${service}/${name}`,
    requestStream: false,
    responseStream: streaming,
    requestSerialize: (v: object) => encodeMessage(req, v),
    requestDeserialize: (b: Buffer) => decodeMessage(req, b),
    responseSerialize: (v: object) => encodeMessage(res, v),
    responseDeserialize: (b: Buffer) => decodeMessage(res, b),
    originalName: name,
  };
}

const REGISTRY = 'api.Registry';
const HEALTH = 'grpc.health.v1.Health';

/** `api.Registry`'s methods: name, request, response, streaming. */
export const registryService: ServiceDefinition = {
  ListPackages: method(REGISTRY, 'ListPackages', M.Empty, M.PackageName, true),
  GetPackage: method(REGISTRY, 'GetPackage', M.GetPackageRequest, M.Package, false),
  GetBundle: method(REGISTRY, 'GetBundle', M.GetBundleRequest, M.Bundle, false),
  GetBundleForChannel: method(REGISTRY, 'GetBundleForChannel', M.GetBundleInChannelRequest, M.Bundle, false),
  GetChannelEntriesThatReplace: method(
    REGISTRY,
    'GetChannelEntriesThatReplace',
    M.GetAllReplacementsRequest,
    M.ChannelEntry,
    true,
  ),
  GetBundleThatReplaces: method(REGISTRY, 'GetBundleThatReplaces', M.GetReplacementRequest, M.Bundle, false),
  GetChannelEntriesThatProvide: method(
    REGISTRY,
    'GetChannelEntriesThatProvide',
    M.ProvidersRequest,
    M.ChannelEntry,
    true,
  ),
  GetLatestChannelEntriesThatProvide: method(
    REGISTRY,
    'GetLatestChannelEntriesThatProvide',
    M.ProvidersRequest,
    M.ChannelEntry,
    true,
  ),
  GetDefaultBundleThatProvides: method(
    REGISTRY,
    'GetDefaultBundleThatProvides',
    M.ProvidersRequest,
    M.Bundle,
    false,
  ),
  ListBundles: method(REGISTRY, 'ListBundles', M.Empty, M.Bundle, true),
};

/** `grpc.health.v1.Health`. */
export const healthService: ServiceDefinition = {
  Check: method(HEALTH, 'Check', M.HealthCheckRequest, M.HealthCheckResponse, false),
  Watch: method(HEALTH, 'Watch', M.HealthCheckRequest, M.HealthCheckResponse, true),
};

/** A query error becomes status UNKNOWN with opm's message (opm returns plain errors); anything else INTERNAL. */
function toStatus(err: unknown): { code: status; details: string } {
  if (err instanceof RegistryQueryError) return { code: status.UNKNOWN, details: err.message };
  return { code: status.INTERNAL, details: err instanceof Error ? err.message : String(err) };
}

// Answers are passed through `withManifestsRead`: manifests a bundle keeps in the serve cache file are read
// asynchronously, so a ListBundles of a catalog served inline does not hold the event loop for the whole file.

function unary<Req, Res>(fn: (req: Req) => Res) {
  return async (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): Promise<void> => {
    try {
      callback(null, await withManifestsRead(fn(call.request)));
    } catch (err) {
      callback(toStatus(err));
    }
  };
}

function streaming<Req, Res>(fn: (req: Req) => Iterable<Res>) {
  return async (call: ServerWritableStream<Req, Res>): Promise<void> => {
    try {
      for (const item of fn(call.request)) {
        if (call.cancelled) return;
        const answer = await withManifestsRead(item);
        if (call.cancelled) return;
        // Respect flow control so a large ListBundles does not buffer the whole catalog.
        if (!call.write(answer)) await drainedOrCancelled(call);
      }
      call.end();
    } catch (err) {
      // grpc-js ends a server stream with a status when the call emits 'error' with { code, details }.
      call.emit('error', toStatus(err));
    }
  };
}

/** Resolves when the call can take more, or when it is cancelled (its client or connection gone). */
function drainedOrCancelled(call: ServerWritableStream<unknown, unknown>): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      call.off('drain', done);
      call.off('cancelled', done);
      resolve();
    };
    call.on('drain', done);
    call.on('cancelled', done);
  });
}

function registryImplementation(q: RegistryQueries): UntypedServiceImplementation {
  return {
    ListPackages: streaming(() => q.listPackages().map((name) => ({ name }))),
    GetPackage: unary((r: GetPackageRequest) => q.getPackage(r.name)),
    GetBundle: unary((r: GetBundleRequest) => q.getBundle(r.pkgName, r.channelName, r.csvName)),
    GetBundleForChannel: unary((r: GetBundleInChannelRequest) =>
      q.getBundleForChannel(r.pkgName, r.channelName),
    ),
    GetChannelEntriesThatReplace: streaming((r: GetAllReplacementsRequest) =>
      q.getChannelEntriesThatReplace(r.csvName),
    ),
    GetBundleThatReplaces: unary((r: GetReplacementRequest) =>
      q.getBundleThatReplaces(r.csvName, r.pkgName, r.channelName),
    ),
    GetChannelEntriesThatProvide: streaming((r: ProvidersRequest) => q.getChannelEntriesThatProvide(r)),
    GetLatestChannelEntriesThatProvide: streaming((r: ProvidersRequest) =>
      q.getLatestChannelEntriesThatProvide(r),
    ),
    GetDefaultBundleThatProvides: unary((r: ProvidersRequest) => q.getDefaultBundleThatProvides(r)),
    ListBundles: streaming(() => q.listBundles()),
  };
}

const SERVING: HealthCheckResponse = { status: 1 };

function healthImplementation(): UntypedServiceImplementation {
  return {
    // Like opm: the whole server is SERVING as soon as it listens, whatever service is asked about.
    Check: unary(() => SERVING),
    Watch: (call: ServerWritableStream<unknown, HealthCheckResponse>) => {
      call.write(SERVING);
      call.on('cancelled', () => call.end());
    },
  };
}

/** A running registry server. */
export interface RunningRegistryServer {
  /** The port it listens on (the chosen one when 0 was asked for). */
  readonly port: number;
  /** `host:port` as bound. */
  readonly address: string;
  /** Stops accepting calls, lets running calls finish for up to `graceMs`, then cancels them. */
  close(graceMs?: number): Promise<void>;
}

/** Options of {@link startRegistryServer}. */
export interface RegistryServerOptions {
  /** @default 50051 (0 picks a free port) */
  readonly port?: number;
  /** Interface to bind; opm binds all of them. @default '0.0.0.0' */
  readonly host?: string;
  /**
   * Connection limits, as every opkit server has: connections open at once, the HTTP/2 preface within
   * `handshakeTimeoutMs`, a connection without calls for `idleTimeoutMs` is closed, and one whose client stops
   * answering pings (sent every third of `idleTimeoutMs`) within `handshakeTimeoutMs` too.
   * @default the runtime's server limits (`serverLimits()` of `@opkit/controller-runtime/serving`)
   */
  readonly limits?: Partial<ServerLimits>;
  /**
   * A connection is asked to go away after this long (clients reconnect), and closed `handlerTimeoutMs` later:
   * a call stalled by its client's flow control does not hold its connection for ever. @default 30 minutes
   */
  readonly maxConnectionAgeMs?: number;
}

/** The HTTP/2 client preface: `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`. */
const HTTP2_PREFACE_BYTES = 24;

/**
 * Serves `api.Registry` and `grpc.health.v1.Health` over plaintext gRPC, as `opm serve` does, from a prepared
 * query set.
 *
 * @throws RegistryError `REGISTRY_LISTEN_FAILED` when the port cannot be bound.
 */
export async function startRegistryServer(
  queries: RegistryQueries,
  options: RegistryServerOptions = {},
): Promise<RunningRegistryServer> {
  const limits = serverLimits(options.limits);
  // gRPC's own bounds on sessions and calls; the sockets under them are bounded below.
  const server = new Server({
    'grpc.max_connection_idle_ms': limits.idleTimeoutMs,
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? 30 * 60_000,
    'grpc.max_connection_age_grace_ms': limits.handlerTimeoutMs,
    'grpc.keepalive_time_ms': Math.ceil(limits.idleTimeoutMs / 3),
    'grpc.keepalive_timeout_ms': limits.handshakeTimeoutMs,
    'grpc.max_concurrent_streams': 100,
  });
  server.addService(registryService, registryImplementation(queries));
  server.addService(healthService, healthImplementation());
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const sockets = createBoundedSocketServer({ limits, handshakeBytes: HTTP2_PREFACE_BYTES }, (socket) =>
    injector.injectConnection(socket),
  );
  const host = options.host ?? '0.0.0.0';
  const wanted = `${host.includes(':') ? `[${host}]` : host}:${options.port ?? 50051}`;
  const port = await new Promise<number>((resolve, reject) => {
    sockets.once('error', (err) =>
      reject(
        new RegistryError('REGISTRY_LISTEN_FAILED', `listen on ${wanted}: ${err.message}`, { cause: err }),
      ),
    );
    sockets.listen(options.port ?? 50051, host, () => resolve((sockets.address() as AddressInfo).port));
  });
  return {
    port,
    address: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        sockets.close();
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
