export {
  type AuthorityOptions,
  type CertificateAndKey,
  certificateAuthority,
  issueServingCertificate,
  type SelfSignedOptions,
  selfSignedCertificate,
} from './certificates.js';
