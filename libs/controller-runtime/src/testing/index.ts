// Test support for @opkit/controller-runtime (`@opkit/controller-runtime/testing`): an in-memory client to
// unit-test reconcilers without a cluster.

export {
  type Action,
  type CallArgs,
  type CallResults,
  FakeClient,
  type FakeClientOptions,
  type InterceptedCall,
  type Interceptor,
  type Interceptors,
  type Verb,
} from './fake-client.js';
export { prng } from './prng.js';
export { recordingEvents } from './recording-events.js';
