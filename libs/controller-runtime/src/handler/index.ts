// Handlers: the map functions that turn a watch event's object into the requests to reconcile (the `for`
// object itself, its controller owner, the instance its labels name, or any mapping that may read the cache).
// Public through `@opkit/controller-runtime/controller`.
export * from './handlers.js';
