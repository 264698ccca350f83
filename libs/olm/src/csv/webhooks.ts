import { byteOrder } from '../go-compat/go-format.js';
import type { WebhookDescription } from '../manifest/cluster-service-version.js';
import { deepCopy, isRecord, type Manifest } from '../manifest/manifest.js';

const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

/** The deployment whose pod labels match a service's selector, as the SDK finds it. */
function deploymentForService(
  service: Manifest | undefined,
  deployments: readonly Manifest[],
): string | undefined {
  if (service === undefined) return undefined;
  const spec = rec(service.spec);
  if (spec.type === 'ExternalName') return undefined;
  const selector = rec(spec.selector);
  if (Object.keys(selector).length === 0) return undefined;
  for (const dep of deployments) {
    const labels = rec(rec(rec(rec(dep.spec).template).metadata).labels);
    if (Object.keys(labels).length === 0) continue;
    if (Object.entries(selector).every(([k, v]) => labels[k] === v)) return dep.metadata.name;
  }
  return undefined;
}

/** `containerPort` and `targetPort` from the Service port the webhook calls, when the Service has it. */
function setServicePort(description: WebhookDescription, service: Manifest | undefined, port: number): void {
  const ports = rec(service?.spec).ports;
  const match = (Array.isArray(ports) ? ports : []).filter(isRecord).find((p) => p.port === port);
  if (match === undefined) return;
  description.containerPort = port;
  if (match.targetPort !== undefined) description.targetPort = match.targetPort as number | string;
}

/**
 * `spec.webhookdefinitions` from Validating/MutatingWebhookConfigurations, as `operator-sdk generate bundle`
 * derives them: the webhook's service is matched to a deployment by label selector, the service port gives
 * `containerPort`/`targetPort`, `admissionReviewVersions` defaults to `[v1beta1]` and `sideEffects` to `None`.
 * Sorted by `generateName`.
 */
export function webhookDefinitions(
  objects: readonly Manifest[],
  deployments: readonly Manifest[],
): WebhookDescription[] {
  const services = objects.filter((o) => o.kind === 'Service');
  const out: WebhookDescription[] = [];
  for (const config of objects) {
    const type =
      config.kind === 'ValidatingWebhookConfiguration'
        ? 'ValidatingAdmissionWebhook'
        : config.kind === 'MutatingWebhookConfiguration'
          ? 'MutatingAdmissionWebhook'
          : undefined;
    if (type === undefined) continue;
    for (const webhook of (Array.isArray(config.webhooks) ? config.webhooks : []).filter(isRecord)) {
      const description: WebhookDescription = {
        type,
        generateName: String(webhook.name ?? ''),
        admissionReviewVersions:
          Array.isArray(webhook.admissionReviewVersions) && webhook.admissionReviewVersions.length > 0
            ? (deepCopy(webhook.admissionReviewVersions) as string[])
            : ['v1beta1'],
        sideEffects: typeof webhook.sideEffects === 'string' ? webhook.sideEffects : 'None',
      };
      for (const key of ['rules', 'failurePolicy', 'matchPolicy', 'objectSelector', 'timeoutSeconds']) {
        if (webhook[key] !== undefined) description[key] = deepCopy(webhook[key]);
      }
      if (type === 'MutatingAdmissionWebhook' && webhook.reinvocationPolicy !== undefined) {
        description.reinvocationPolicy = webhook.reinvocationPolicy;
      }
      const serviceRef = rec(rec(webhook.clientConfig).service);
      if (Object.keys(serviceRef).length > 0) {
        const service = services.find((s) => s.metadata.name === serviceRef.name);
        setServicePort(description, service, typeof serviceRef.port === 'number' ? serviceRef.port : 443);
        description.deploymentName =
          deploymentForService(service, deployments) ??
          String(serviceRef.name ?? '').replace(/-service$/, '');
        if (typeof serviceRef.path === 'string') description.webhookPath = serviceRef.path;
      }
      out.push(description);
    }
  }
  out.push(...conversionDefinitions(objects, services, deployments));
  return out.sort((a, b) => byteOrder(a.generateName, b.generateName));
}

/**
 * `ConversionWebhook` definitions from CRDs whose `spec.conversion.webhook` calls a Service of the bundle, as
 * the SDK groups them: one definition per service, port and path, listing its CRDs in `conversionCRDs` and
 * named `c<plural of each CRD, sorted>.kb.io`; `admissionReviewVersions` are the CRD's
 * `conversionReviewVersions`, with no default.
 */
function conversionDefinitions(
  objects: readonly Manifest[],
  services: readonly Manifest[],
  deployments: readonly Manifest[],
): WebhookDescription[] {
  const out: WebhookDescription[] = [];
  for (const service of services) {
    const groups = new Map<
      string,
      { port: number | undefined; path: string; crds: string[]; versions: unknown }
    >();
    for (const crd of objects.filter((o) => o.kind === 'CustomResourceDefinition')) {
      const webhook = rec(rec(rec(crd.spec).conversion).webhook);
      const ref = rec(rec(webhook.clientConfig).service);
      if (ref.name === undefined || ref.name !== service.metadata.name) continue;
      const port = typeof ref.port === 'number' ? ref.port : undefined;
      const path = typeof ref.path === 'string' ? ref.path : '';
      const key = `${port ?? ''}\u0000${path}`;
      const group = groups.get(key) ?? { port, path, crds: [], versions: webhook.conversionReviewVersions };
      group.crds.push(crd.metadata.name ?? '');
      groups.set(key, group);
    }
    for (const group of groups.values()) {
      const crds = [...group.crds].sort(byteOrder);
      const description: WebhookDescription = {
        type: 'ConversionWebhook',
        generateName: `c${crds.map((name) => name.split('.')[0]).join('')}.kb.io`,
        admissionReviewVersions: Array.isArray(group.versions) ? (deepCopy(group.versions) as string[]) : [],
        sideEffects: 'None',
        conversionCRDs: crds,
        webhookPath: group.path,
      };
      setServicePort(description, service, group.port ?? 443);
      description.deploymentName =
        deploymentForService(service, deployments) ??
        String(service.metadata.name ?? '').replace(/-service$/, '');
      out.push(description);
    }
  }
  return out;
}
