// @opkit/controller-runtime/serving: what the runtime's servers are made of and other packages build on — a
// TCP server bounded at the connection level (the catalog's gRPC server uses it) and the limits every server
// takes — and TLS certificates: self-signed ones and a small CA for tests and local runs, and the watcher that
// reloads a serving certificate when its files change.

export { createBoundedSocketServer, type ServerLimits, serverLimits } from './bounded-server.js';
export { CertWatcher, type CertWatcherOptions } from './cert-watcher.js';
export {
  type AuthorityOptions,
  type CertificateAndKey,
  certificateAuthority,
  issueServingCertificate,
  type SelfSignedOptions,
  selfSignedCertificate,
} from './certificates.js';
