// The admission webhook configurations and the CRD conversion patch for the kinds' webhook declarations
// (`KindWebhooks` of @opkit/controller-runtime/webhook, which the manager registers): the paths configured
// here are the paths the runtime serves.
export {
  conversionPatch,
  serviceClientConfig,
  WEBHOOK_SERVICE,
  webhookConfigurations,
} from './webhook-configurations.js';
