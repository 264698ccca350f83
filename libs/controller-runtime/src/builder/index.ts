// The controller builder, as controller-runtime's `builder`: `controllerManagedBy(manager).for().owns()
// .watches().complete(reconciler)`. `controllerManagedBy` is at the package root; the `ControllerBuilder` it
// returns is not exported by name.
export { controllerManagedBy } from './builder.js';
