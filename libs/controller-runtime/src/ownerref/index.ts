export {
  AlreadyOwnedError,
  CrossNamespaceOwnerError,
  getControllerOf,
  InvalidOwnerError,
  isControlledBy,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';
