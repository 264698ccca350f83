export { BuilderError } from '../internal/builder-error.js';
export { ControllerBuilder, controllerManagedBy } from './builder.js';
export {
  WebhookBuilder,
  type WebhookRegistration,
  webhookManagedBy,
  webhookPath,
} from '../webhook/webhook-builder.js';
