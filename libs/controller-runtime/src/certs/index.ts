export { CertWatcher, type CertWatcherOptions } from './cert-watcher.js';
export {
  type AuthorityOptions,
  type CertificateAndKey,
  certificateAuthority,
  issueServingCertificate,
  type SelfSignedOptions,
  selfSignedCertificate,
} from './certificates.js';
