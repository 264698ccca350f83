// What other packages build on: a TCP server bounded at the connection level for a protocol another library
// speaks (the catalog's gRPC server) and the limits every server takes. The HTTP servers of the runtime use
// `createBoundedServer` from inside.
export { createBoundedSocketServer, type ServerLimits, serverLimits } from './bounded-server.js';
