// The API server's errors as the clients raise them, and the tests a reconcile makes of them (apimachinery's
// `apierrors`). Reached through the package root and `@opkit/controller-runtime/client`.
export {
  ApiError,
  ConnectionError,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isTransient,
} from './errors.js';
