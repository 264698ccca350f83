// The envtest tier of the test kit (`@opkit/test-cluster/envtest`): a test environment of etcd and
// kube-apiserver only, started as any user in seconds (or an existing cluster), with an operator's CRDs and
// webhook configurations installed, and the accessor test files of the `envtest` vitest project use.
export { envtest, type ProvidedTestEnvironment, type SharedTestEnvironment } from './accessor.js';
export {
  startTestEnvironment,
  type TestEnvironment,
  type TestEnvironmentOptions,
  type TestEnvironmentWebhook,
} from './environment.js';
