// @opkit/controller-runtime/kinds: built-in kinds as operators read and write them — their object types in JSON
// form and their typed tokens (`POD`, `DEPLOYMENT`, …) — and `containerResources` for a spec's resources.
export * from './kinds.js';
