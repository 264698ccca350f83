export {
  type BoundedServerOptions,
  ClientGoneError,
  createBoundedServer,
  createBoundedSocketServer,
  DEFAULT_SERVER_LIMITS,
  defaultFailureReply,
  HandlerTimeoutError,
  type Reply,
  type RequestHandler,
  type ServerLimits,
  serverLimits,
} from './bounded-server.js';
