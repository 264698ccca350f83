// The controller builder, as controller-runtime's `builder`: `controllerManagedBy(manager).for().owns()
// .watches().complete(reconciler)`. `controllerManagedBy` is at the package root, `ControllerBuilder` in
// `@opkit/controller-runtime/controller`.
export { ControllerBuilder, controllerManagedBy } from './builder.js';
