// The root of @opkit/controller-tools: what an operator project runs at build time, as controller-tools'
// controller-gen is to controller-runtime. It generates the files the API server and OLM read (CRDs, roles,
// webhook configurations, the kubebuilder-layout `config/`) from the declarations the running operator uses;
// the runtime never imports it. Each module directory is also a subpath exporting the same names.
export * from './crd/index.js';
export * from './manifests/index.js';
export * from './rbac/index.js';
export * from './webhook/index.js';
