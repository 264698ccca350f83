/**
 * The conformance corpus: every directory of `corpus/` is a catalog that `opm validate` (v1.73.0) and
 * `validateCatalog(loadCatalog(dir))` must judge alike. `phrase` is the key phrase of opm's message that ours must
 * contain too; beyond that, the conformance test requires the whole message to agree (a single line verbatim, or
 * the same set of tree paths for model errors, whose order opm leaves to Go's map iteration).
 *
 * JSON files use the extension `.fbc` so that the repository formatter leaves their bytes alone; opm loads files
 * whatever their extension.
 */
export interface CorpusCase {
  readonly name: string;
  readonly valid: boolean;
  /** For invalid cases: the phrase both messages contain. */
  readonly phrase?: string;
  /** What the case exercises. */
  readonly about: string;
}

export const CORPUS: readonly CorpusCase[] = [
  // valid catalogs
  { name: 'valid-simple', valid: true, about: 'replaces chain with a skipRange on the head (YAML)' },
  {
    name: 'valid-quoted-continuation',
    valid: true,
    about: "quoted scalars continued at their key's indentation and below it, which go-yaml reads",
  },
  { name: 'valid-skips', valid: true, about: 'a skipped entry is not stranded; the head replaces past it' },
  {
    name: 'valid-json-stream-subdir',
    valid: true,
    about:
      'concatenated JSON objects in a nested directory, a digest image, the tail replacing a bundle outside the channel',
  },
  {
    name: 'valid-json-trailing-comma',
    valid: true,
    about: "a JSON syntax error (trailing comma) that apimachinery's YAML fallback accepts",
  },
  {
    name: 'json-nesting-at-limit',
    valid: true,
    about: "JSON nested exactly as deep as Go's encoding/json allows (10,000 levels)",
  },
  {
    name: 'valid-bundle-object-without-image',
    valid: true,
    about: 'image "" is allowed with olm.bundle.object',
  },
  {
    name: 'valid-nested-packages',
    valid: true,
    about: 'two packages in sub-directories, a bundle deprecation',
  },
  {
    name: 'unknown-schema-is-kept',
    valid: true,
    about: 'an unknown schema (typo olm.bundel) is kept as an "other" blob, not an error (opkit warns)',
  },
  {
    name: 'indexignore-hides-broken',
    valid: true,
    about: 'root and nested .indexignore exclude broken files',
  },

  // loading
  {
    name: 'invalid-json',
    valid: false,
    phrase: "invalid character '\"' after object key:value pair",
    about: 'JSON syntax error with offset',
  },
  { name: 'invalid-json-truncated', valid: false, phrase: 'unexpected EOF', about: 'truncated JSON object' },
  {
    name: 'invalid-yaml',
    valid: false,
    phrase: 'error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context',
    about: 'mis-indented YAML key',
  },
  {
    name: 'bad-document-separator',
    valid: false,
    phrase: 'invalid Yaml document separator',
    about: 'content after ---',
  },
  {
    name: 'missing-schema',
    valid: false,
    phrase: 'is missing root schema field',
    about: 'a document without schema',
  },
  {
    name: 'empty-yaml-document',
    valid: false,
    phrase: "object '' is missing root schema field",
    about: 'a blank line after a trailing --- is an empty document',
  },
  {
    name: 'schema-not-a-string',
    valid: false,
    phrase: 'expected value for key "schema" to be a string',
    about: 'schema: 5',
  },
  {
    name: 'duplicate-keys-differing-in-case',
    valid: false,
    phrase: 'duplicate keys for key "name": [Name name]',
    about: 'name and Name in one blob',
  },
  {
    name: 'hidden-file-is-loaded',
    valid: false,
    phrase: 'mapping values are not allowed in this context',
    about: 'opm loads hidden files and directories (.backup/old.yaml)',
  },
  {
    name: 'entries-not-a-list',
    valid: false,
    phrase: 'parse channel: json: cannot unmarshal object into Go struct field Channel.entries',
    about: 'entries is a map',
  },
  {
    name: 'icon-bad-base64',
    valid: false,
    phrase: 'illegal base64 data at input byte 0',
    about: 'package icon data',
  },

  // ConvertToModel
  {
    name: 'missing-package-name',
    valid: false,
    phrase: 'config contains package with no name',
    about: 'olm.package without name',
  },
  {
    name: 'invalid-package-name',
    valid: false,
    phrase: 'invalid package name "Foo_Operator"',
    about: 'not a DNS-1123 label',
  },
  {
    name: 'duplicate-package',
    valid: false,
    phrase: 'duplicate package "foo"',
    about: 'the same package in two sub-directories',
  },
  {
    name: 'channel-unknown-package',
    valid: false,
    phrase: 'unknown package "bar" for channel "stable"',
    about: 'a channel of a package that does not exist',
  },
  {
    name: 'duplicate-channel-entry',
    valid: false,
    phrase: 'duplicate entry "foo.v1.0.0"',
    about: 'one bundle listed twice in a channel',
  },
  {
    name: 'bundle-unknown-package',
    valid: false,
    phrase: 'unknown package "bar" for bundle "bar.v1.0.0"',
    about: 'a bundle of a package that does not exist',
  },
  {
    name: 'duplicate-bundle',
    valid: false,
    phrase: 'has duplicate bundle "foo.v1.0.0"',
    about: 'two blobs with one name',
  },
  {
    name: 'bad-semver-version',
    valid: false,
    phrase:
      'error parsing bundle "foo.v1.0.0" version "v1.0.0": Invalid character(s) found in major number "v1"',
    about: 'a v prefix in olm.package version (blang is strict)',
  },
  {
    name: 'unquoted-yaml-version',
    valid: false,
    phrase: 'cannot unmarshal number into Go struct field Package.version of type string',
    about: 'version: 1.10 unquoted in YAML is the float 1.1',
  },
  {
    name: 'missing-olm-package-property',
    valid: false,
    phrase: 'must have exactly 1 "olm.package" property, found 0',
    about: 'no olm.package property',
  },
  {
    name: 'package-property-mismatch',
    valid: false,
    phrase: 'package "foo" does not match "olm.package" property "bar"',
    about: 'olm.package names another package',
  },
  {
    name: 'invalid-image-reference',
    valid: false,
    phrase: 'invalid image pull spec',
    about: 'upper-case repository',
  },
  {
    name: 'channel-entry-without-bundle',
    valid: false,
    phrase: 'no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v2.0.0]',
    about: 'a channel entry for a bundle that has no blob',
  },
  {
    name: 'bundle-not-in-any-channel',
    valid: false,
    phrase: 'bundle "foo.v3.0.0" not found in any channel entries',
    about: 'an orphan bundle',
  },
  {
    name: 'bad-release',
    valid: false,
    phrase: 'Numeric PreRelease version must not contain leading zeroes "01"',
    about: 'olm.package release "01"',
  },
  {
    name: 'deprecation-unknown-bundle',
    valid: false,
    phrase: 'cannot deprecate bundle "foo.v9.0.0" for package "foo": bundle not found',
    about: 'deprecating a bundle that does not exist',
  },

  // model.Validate (tree)
  {
    name: 'default-channel-missing',
    valid: false,
    phrase: 'channel must contain at least one bundle',
    about: 'defaultChannel names a channel without blob: opm synthesizes an empty one',
  },
  {
    name: 'default-channel-unset',
    valid: false,
    phrase: 'default channel must be set',
    about: 'no defaultChannel',
  },
  {
    name: 'two-channel-heads',
    valid: false,
    phrase: 'multiple channel heads found in graph: foo.v1.1.0, foo.v1.2.0',
    about: 'two entries nobody replaces',
  },
  {
    name: 'replaces-cycle',
    valid: false,
    phrase: 'detected cycle in replaces chain of upgrade graph: foo.v1.1.0 -> foo.v1.0.0 -> foo.v1.1.0',
    about: 'a cycle below the head',
  },
  {
    name: 'no-channel-head',
    valid: false,
    phrase: 'no channel head found in graph',
    about: 'a pure replaces cycle',
  },
  {
    name: 'stranded-bundle',
    valid: false,
    phrase: 'channel contains one or more stranded bundles: foo.v0.9.0',
    about: 'an entry off the replaces chain',
  },
  {
    name: 'stranded-behind-skipped-replaces',
    valid: false,
    phrase: 'stranded bundles: foo.v1.0.0, foo.v1.1.0',
    about: 'PR #1750: the walk stops at a skipped replaces target',
  },
  {
    name: 'stranded-despite-skiprange',
    valid: false,
    phrase: 'stranded bundles: foo.v1.0.0',
    about: 'opm validate ignores skipRange: reachable only through it is still stranded',
  },
  {
    name: 'skiprange-npm-syntax',
    valid: false,
    phrase: 'invalid skipRange "^1.0.0": Could not parse Range "^1.0.0": Could not parse comparator "^"',
    about: 'npm caret range',
  },
  {
    name: 'skiprange-v-prefix',
    valid: false,
    phrase: 'invalid skipRange ">=v1.0.0 <v1.1.0"',
    about: 'v-prefixed versions in a skipRange (community-operators-prod #9687)',
  },
  {
    name: 'duplicate-versions',
    valid: false,
    phrase: 'duplicate versions found in bundles: [{1.0.0: [foo.v1.0.0, foo.v1.0.0-rebuild]}]',
    about: 'two bundles claim 1.0.0',
  },
  {
    name: 'missing-image',
    valid: false,
    phrase: 'bundle image must be set',
    about: 'image "" without bundle objects',
  },
  { name: 'empty-skip', valid: false, phrase: 'skip[0] is empty', about: 'skips: [""]' },
  {
    name: 'deprecation-empty-message',
    valid: false,
    phrase: 'invalid deprecation: message must be set',
    about: 'a channel deprecation without message',
  },
  {
    name: 'several-model-problems',
    valid: false,
    phrase: 'bundle image must be set',
    about: 'two heads, a missing image and a bad skipRange in two channels: the whole tree must agree',
  },
  // hostile input: refused quickly, with go-yaml's and encoding/json's words
  {
    name: 'yaml-alias-bomb',
    valid: false,
    phrase: 'document contains excessive aliasing',
    about: 'a billion laughs: ten levels of ten aliases would expand to 10^9 strings',
  },
  {
    name: 'yaml-anchor-contains-itself',
    valid: false,
    phrase: "anchor 'loop' value contains itself",
    about: 'an alias inside its own anchor would expand forever',
  },
  {
    name: 'json-nesting-too-deep',
    valid: false,
    phrase: "invalid character '[' exceeded max depth",
    about: 'one level deeper than encoding/json allows',
  },
];
