// The `yaml` package, loaded the first time a YAML text is read or written. It is about 70 modules, and the
// catalog commands on JSON catalogs never need it; the readers that do are synchronous, so it is required
// rather than imported.
import module from 'node:module';

type YamlLibrary = typeof import('yaml');

let loaded: YamlLibrary | undefined;

/**
 * The `yaml` package, loaded on first use. A bundler sees the `require` call and bundles the package (esbuild
 * keeps a CommonJS package's code unevaluated until that call). Where that `require` is not a working one —
 * Node runs ES modules without `require`, and esbuild, bundling to an ES module with `yaml` left outside,
 * turns it into a helper that throws unless the module defines a `require` — the package is required relative
 * to this module instead.
 */
export function yamlLibrary(): YamlLibrary {
  loaded ??= requireYaml();
  return loaded;
}

function requireYaml(): YamlLibrary {
  if (typeof require === 'function') {
    try {
      return require('yaml') as YamlLibrary;
    } catch {
      // A bundler's stand-in without a `require` behind it: resolve from this module's location below.
    }
  }
  return module.createRequire(import.meta.url)('yaml') as YamlLibrary;
}
