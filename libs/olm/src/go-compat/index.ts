// How the Go tools (opm, operator-framework/api, operator-sdk) read what users give them, where that is more
// lenient than the obvious TypeScript reading, and the few details of their output that follow from the same Go
// libraries. Readers in bundle/, catalog/ and validation/ go through here, so that opkit accepts what the Go
// tools accept, in one place.

export { goFieldName, goFoldName } from './json-field-names.js';
export { parseRequestUri, type RequestUri } from './request-uri.js';
export { goSortSlice } from './sort-slice.js';
export { parseGoYamlDocument, parseGoYamlDocuments } from './yaml-quoted-scalars.js';
export { goFloat32, goYamlScalarString } from './yaml-string-target.js';
export { isGoYamlTimestamp } from './yaml-timestamp.js';
