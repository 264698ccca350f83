import { gvkOf } from '@opkit/controller-runtime/client';
import { type AnyKindWebhooks, CONVERSION_PATH, webhookPath } from '@opkit/controller-runtime/webhook';
import type { WebhookClientConfig } from '../crd/custom-resource-definition.js';

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
