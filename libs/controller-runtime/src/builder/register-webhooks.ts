import type { Manager } from '../manager/manager.js';
import type { KubeObject } from '../object.js';
import type { KindWebhooks } from '../webhook/kind-webhooks.js';
import { type WebhookRegistration, webhookManagedBy } from './webhook-builder.js';

/** Registers the kind's webhooks on the manager's webhook server: the builder, driven by the declaration. */
export function registerWebhooks<T extends KubeObject>(
  manager: Manager,
  kind: KindWebhooks<T>,
): WebhookRegistration {
  const builder = webhookManagedBy(manager).for<T>(kind.type, { schema: kind.schema });
  if (kind.defaulter) builder.withDefaulter(kind.defaulter);
  if (kind.validator) builder.withValidator(kind.validator);
  if (kind.conversion) builder.withConversion(kind.conversion.hub, kind.conversion.spokes);
  return builder.complete();
}
