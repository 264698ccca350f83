// The `yaml` package, loaded the first time a YAML text is read or written. It is about 70 modules, and the
// catalog commands on JSON catalogs never need it; the readers that do are synchronous, so it is required
// rather than imported.
import module from 'node:module';

type YamlLibrary = typeof import('yaml');

let loaded: YamlLibrary | undefined;

/**
 * The `yaml` package, loaded on first use. A bundler sees the `require` call and bundles the package (esbuild
 * keeps a CommonJS package's code unevaluated until that call); Node runs ES modules without `require`, so
 * there it is required relative to this module.
 */
export function yamlLibrary(): YamlLibrary {
  loaded ??= (
    typeof require === 'function' ? require('yaml') : module.createRequire(import.meta.url)('yaml')
  ) as YamlLibrary;
  return loaded;
}
