export { BuilderError, ControllerBuilder, controllerManagedBy } from './builder.js';
export { registerWebhooks } from './register-webhooks.js';
export {
  WebhookBuilder,
  type WebhookRegistration,
  webhookManagedBy,
  webhookPath,
} from './webhook-builder.js';
