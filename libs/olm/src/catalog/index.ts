/**
 * File-based catalogs (FBC) as operator-registry v1.73.0 handles them: loading with opm's decoder rules
 * (`loadCatalog`), the package/channel/bundle model that validation, the registry and the upgrade graph share
 * (`convertToModel`), `opm validate`'s checks and messages (`validateCatalog`, `formatValidationResults`), opm's
 * byte-exact JSON and YAML writers (`serializeCatalog`, `writeCatalog`), the basic and semver templates, and a
 * synthetic catalog generator for benchmarks.
 *
 * Deliberate differences from opm: all conversion problems are reported, not only the first; channel entries
 * without a bundle are detected in every channel (opm only checks the last channel it loaded per package and
 * otherwise reports `must be exactly one property with type "olm.package"` / `bundle image must be set` for
 * them); packages, channels and bundles are validated in name order (opm uses Go map order); YAML syntax errors
 * come from the `yaml` package, reworded like go-yaml for the common cases; opkit adds `lint` warnings.
 */
export * from './declcfg/index.js';
export * from './model/index.js';
export * from './template/index.js';
