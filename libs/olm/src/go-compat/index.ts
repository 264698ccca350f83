// How the Go tools (opm, operator-framework/api, operator-sdk) read what users give them, where that is more
// lenient than the obvious TypeScript reading, and the few details of their output that follow from the same Go
// libraries. Readers in bundle/, catalog/ and validation/ go through here, so that opkit accepts what the Go
// tools accept, in one place.
//
// The folder also holds the Go-exact codecs that the catalog and bundle readers and writers use module by module
// (not re-exported here, so that an entry point loads only the ones it needs): encoding/json's decoding into Go
// types and its scanner (`go-json-decode.ts`, `go-json-scan.ts`), Go's base64 (`go-base64.ts`), sigs.k8s.io/yaml's
// YAML-to-JSON conversion and go-yaml's limits and writer (`yaml-json.ts`, `yaml-depth.ts`, `yaml-emit.ts`), and
// the YAML document splitter (`yaml-stream.ts`).

export { goFieldName, goFoldName } from './json-field-names.js';
export { parseRequestUri, type RequestUri } from './request-uri.js';
export { goSortSlice } from './sort-slice.js';
export { parseGoYamlDocument, parseGoYamlDocuments } from './yaml-quoted-scalars.js';
export { goFloat32, goYamlScalarString } from './yaml-string-target.js';
export { isGoYamlTimestamp } from './yaml-timestamp.js';
