import type { Kind, KubeObject } from '../object.js';
import type { Defaulter, Validator } from './admission.js';
import type { Spoke } from './conversion.js';
import type { SchemaValidator } from './schema-validator.js';
import { type WebhookHost, type WebhookRegistration, webhookManagedBy } from './webhook-builder.js';

/**
 * Everything about one kind's webhooks in one declaration (what kubebuilder spreads over `+kubebuilder:webhook`
 * markers and `SetupWebhookWithManager`): the manager registers it (`registerWebhooks`), and
 * @opkit/controller-tools generates the project's webhook configurations from it, so the paths served and the
 * paths configured cannot drift apart.
 */
export interface KindWebhooks<T extends KubeObject> {
  /** The kind at the version the admission webhooks decode (the hub, when there is conversion). */
  readonly type: Kind<T>;
  readonly plural: string;
  /** The validator of that version's schema (see WebhookBuilder.for). */
  readonly schema?: SchemaValidator;
  readonly defaulter?: Defaulter<T>;
  readonly validator?: Validator<T>;
  readonly conversion?: {
    readonly hub: string;
    readonly spokes: Readonly<Record<string, Spoke<KubeObject, T>>>;
  };
  /** What the API server does when the webhook cannot be reached. @default 'Fail' */
  readonly failurePolicy?: 'Fail' | 'Ignore';
}

/** What generated manifests read of any kind's declaration (which webhooks exist, not their code). */
export interface AnyKindWebhooks {
  readonly type: Kind;
  readonly plural: string;
  readonly defaulter?: unknown;
  readonly validator?: { readonly validateDelete?: unknown };
  readonly conversion?: { readonly hub: string };
  readonly failurePolicy?: 'Fail' | 'Ignore';
}

/** Registers the kind's webhooks on the manager's webhook server. */
export function registerWebhooks<T extends KubeObject>(
  manager: WebhookHost,
  kind: KindWebhooks<T>,
): WebhookRegistration {
  const builder = webhookManagedBy(manager).for(kind.type, { schema: kind.schema });
  if (kind.defaulter) builder.withDefaulter(kind.defaulter);
  if (kind.validator) builder.withValidator(kind.validator);
  if (kind.conversion) builder.withConversion(kind.conversion.hub, kind.conversion.spokes);
  return builder.complete();
}
