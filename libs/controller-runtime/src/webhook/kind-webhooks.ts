import type { TypeRef } from '../client/client.js';
import type { WebhookClientConfig } from '../crd/custom-resource-definition.js';
import { gvkOf, type KubeObject } from '../object.js';
import type { Defaulter, Validator } from './admission.js';
import type { Spoke } from './conversion.js';
import type { SchemaValidator } from './schema-validator.js';
import { CONVERSION_PATH } from './server.js';
import {
  type WebhookHost,
  type WebhookRegistration,
  webhookManagedBy,
  webhookPath,
} from './webhook-builder.js';

/**
 * Everything about one kind's webhooks in one declaration (what kubebuilder spreads over `+kubebuilder:webhook`
 * markers and `SetupWebhookWithManager`): the manager registers it, and the project's manifests are generated
 * from it, so the paths served and the paths configured cannot drift apart.
 */
export interface KindWebhooks<T extends KubeObject> {
  /** The kind at the version the admission webhooks decode (the hub, when there is conversion). */
  readonly type: TypeRef;
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

/** What manifests read of any kind's declaration (which webhooks exist, not their code). */
export interface AnyKindWebhooks {
  readonly type: TypeRef;
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
  const builder = webhookManagedBy(manager).for<T>(kind.type, { schema: kind.schema });
  if (kind.defaulter) builder.withDefaulter(kind.defaulter);
  if (kind.validator) builder.withValidator(kind.validator);
  if (kind.conversion) builder.withConversion(kind.conversion.hub, kind.conversion.spokes);
  return builder.complete();
}

/** The Service kubebuilder's `config/webhook` declares, before kustomize prefixes and places it. */
export const WEBHOOK_SERVICE = { name: 'webhook-service', namespace: 'system' } as const;

export const serviceClientConfig =
  (service: { readonly name: string; readonly namespace: string } = WEBHOOK_SERVICE) =>
  (path: string): WebhookClientConfig => ({ service: { ...service, path } });

interface WebhookEntry {
  readonly name: string;
  readonly path: string;
  readonly kind: AnyKindWebhooks;
  readonly operations: readonly string[];
}

function configuration(
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  name: string,
  entries: readonly WebhookEntry[],
  clientConfig: (path: string) => WebhookClientConfig,
) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: entries.map((e) => {
      const { group, version } = gvkOf(e.kind.type.apiVersion, e.kind.type.kind);
      return {
        admissionReviewVersions: ['v1'],
        clientConfig: clientConfig(e.path),
        failurePolicy: e.kind.failurePolicy ?? 'Fail',
        name: e.name,
        rules: [
          {
            apiGroups: [group],
            apiVersions: [version],
            operations: [...e.operations],
            resources: [e.kind.plural],
          },
        ],
        sideEffects: 'None',
      };
    }),
  };
}

/**
 * The MutatingWebhookConfiguration and ValidatingWebhookConfiguration for the kinds, named and laid out as
 * kubebuilder's `config/webhook/manifests.yaml` (`mmemcached-v1beta1.kb.io` …); absent when no kind has one.
 */
export function webhookConfigurations(
  kinds: readonly AnyKindWebhooks[],
  clientConfig: (path: string) => WebhookClientConfig = serviceClientConfig(),
) {
  const name = (prefix: string, k: AnyKindWebhooks) => {
    const { version } = gvkOf(k.type.apiVersion, k.type.kind);
    return `${prefix}${k.type.kind.toLowerCase()}-${version}.kb.io`;
  };
  const mutating = kinds
    .filter((k) => k.defaulter)
    .map((k) => ({
      name: name('m', k),
      path: webhookPath('mutate', k.type),
      kind: k,
      operations: ['CREATE', 'UPDATE'],
    }));
  const validating = kinds
    .filter((k) => k.validator)
    .map((k) => ({
      name: name('v', k),
      path: webhookPath('validate', k.type),
      kind: k,
      operations: ['CREATE', 'UPDATE', ...(k.validator?.validateDelete ? ['DELETE'] : [])],
    }));
  return {
    mutating: mutating.length
      ? configuration(
          'MutatingWebhookConfiguration',
          'mutating-webhook-configuration',
          mutating,
          clientConfig,
        )
      : undefined,
    validating: validating.length
      ? configuration(
          'ValidatingWebhookConfiguration',
          'validating-webhook-configuration',
          validating,
          clientConfig,
        )
      : undefined,
  };
}

/** The conversion stanza kubebuilder's `config/crd/patches/webhook_in_<plural>.yaml` adds to a CRD. */
export function conversionPatch(
  crdName: string,
  clientConfig: (path: string) => WebhookClientConfig = serviceClientConfig(),
) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: {
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: clientConfig(CONVERSION_PATH), conversionReviewVersions: ['v1'] },
      },
    },
  };
}
