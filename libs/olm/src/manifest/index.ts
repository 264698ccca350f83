// Decoded manifests and the types the OLM formats share: a Kubernetes manifest with its helpers, and the
// ClusterServiceVersion's types (operator-framework/api's). Every other folder reads manifests through these.
export * from './cluster-service-version.js';
export * from './manifest.js';
