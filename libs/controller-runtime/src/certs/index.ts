export { CertWatcher, type CertWatcherOptions } from '../serving/cert-watcher.js';
export {
  type AuthorityOptions,
  type CertificateAndKey,
  certificateAuthority,
  issueServingCertificate,
  type SelfSignedOptions,
  selfSignedCertificate,
} from '../serving/certificates.js';
