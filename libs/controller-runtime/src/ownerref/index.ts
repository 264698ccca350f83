// Owner references as controller-runtime's `controllerutil` sets them: one controller reference per object,
// scoped correctly. `setControllerReference` is at the package root, all of it in
// `@opkit/controller-runtime/controllerutil`.
export {
  AlreadyOwnedError,
  CrossNamespaceOwnerError,
  getControllerOf,
  InvalidOwnerError,
  isControlledBy,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';
