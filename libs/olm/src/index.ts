// @opkit/olm: OLM's formats — ClusterServiceVersions, registry+v1 bundles, file-based catalogs, templates,
// upgrade graphs — and validators that report what operator-sdk and opm report.
export * from './bundle/index.js';
export * from './catalog/index.js';
export * from './csv/index.js';
export * from './graph/index.js';
export * from './manifest/index.js';
export * from './scorecard/index.js';
export * from './semver/index.js';
export * from './validation/index.js';
