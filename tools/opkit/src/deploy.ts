// The work of `opkit deploy`: an operator project's overlay rendered with its image, webhook certificates
// issued, each object marked (or found) and applied server-side. Loaded by the command's action only.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { Manifest } from '@opkit/olm';
import { CliError } from './cli-error.js';
import type { ResultFormat } from './output.js';
import type { SecretData } from './webhook-certificates.js';

/** The options of `opkit deploy`. */
export interface DeployOptions {
  readonly image?: string;
  readonly operator: string;
  readonly kubeconfig?: string;
  readonly certManager: boolean;
  readonly output: ResultFormat;
}

/** A Secret of the cluster, or undefined when there is none; `kubectl` runs kubectl (loaded with the command). */
function readSecret(
  kubectl: (args: readonly string[]) => string,
  kubeconfig: string[],
  namespace: string,
  name: string,
): SecretData | undefined {
  const text = kubectl([
    'get',
    ...kubeconfig,
    'secret',
    '-n',
    namespace,
    name,
    '-o',
    'json',
    '--ignore-not-found',
  ]);
  return text.trim() === '' ? undefined : (JSON.parse(text) as SecretData);
}

/**
 * The image deploy uses without `--image`: built and pushed to the local registry the cluster records.
 *
 * @throws CliError `OPKIT_DEPLOY_IMAGE_MISSING` when the cluster records none, saying how to push an image
 */
async function localRegistryImage(
  operatorDir: string,
  kubeconfig: string | undefined,
  progress: NodeJS.WritableStream,
): Promise<string> {
  const { readLocalRegistry, LOCAL_REGISTRY_HOSTING } = await import('./local-registry.js');
  const registry = await readLocalRegistry(kubeconfig);
  if (registry === undefined) {
    const { operatorImageIdentity } = await import('./pipelines/build-operator-image.js');
    const { name, version } = await operatorImageIdentity(operatorDir);
    const operator = relative(process.cwd(), operatorDir) || '.';
    throw new CliError(
      'OPKIT_DEPLOY_IMAGE_MISSING',
      `no --image, and the cluster records no local registry (ConfigMap ${LOCAL_REGISTRY_HOSTING.namespace}/${LOCAL_REGISTRY_HOSTING.name}): push the operator's image first (opkit image build --operator ${operator}; opkit image push dist/images/${name} <registry>/${name}:${version}) and pass --image <registry>/${name}:${version}`,
    );
  }
  const { buildAndPushToLocalRegistry } = await import('./pipelines/local-deploy-image.js');
  const image = await buildAndPushToLocalRegistry({
    operatorDir,
    registry,
    log: (line) => progress.write(`${line}\n`),
  });
  progress.write(`deploying with ${image}\n`);
  return image;
}

/** What `opkit deploy -o json|yaml` prints: where the manifests came from and each object applied. */
export interface DeployResult {
  readonly operator: string;
  readonly image: string;
  /** The kustomize overlay rendered, relative to the operator: config/default or config/with-certmanager. */
  readonly overlay: string;
  /** The server-side apply field manager that owns the applied fields. */
  readonly fieldManager: string;
  /** Every object applied, in the order applied (the names only: never a Secret's data). */
  readonly applied: ReadonlyArray<{
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
  }>;
  /** What deploy did about the webhook serving certificate, when it issued or kept one. */
  readonly webhookCertificate?: string;
}

/** The result of applying `manifests`. */
export function deployResult(
  manifests: readonly Manifest[],
  o: {
    readonly operator: string;
    readonly image: string;
    readonly overlay: string;
    readonly fieldManager: string;
    readonly webhookCertificate?: string;
  },
): DeployResult {
  return {
    operator: o.operator,
    image: o.image,
    overlay: `config/${o.overlay}`,
    fieldManager: o.fieldManager,
    applied: manifests.map((m) => ({
      apiVersion: m.apiVersion,
      kind: m.kind,
      name: m.metadata.name ?? '',
      ...(m.metadata.namespace === undefined ? {} : { namespace: m.metadata.namespace }),
    })),
    ...(o.webhookCertificate === undefined ? {} : { webhookCertificate: o.webhookCertificate }),
  };
}

/** `opkit deploy`: renders, marks and applies the operator's overlay, printing the result in the format asked. */
export async function deployOperator(opts: DeployOptions): Promise<void> {
  const dir = resolve(opts.operator);
  const overlay = opts.certManager ? 'with-certmanager' : 'default';
  // The local input first, flags then the project: named before anything asks the cluster.
  const { checkImageReference } = await import('@opkit/olm/action/image-reference');
  if (opts.image !== undefined) checkImageReference('--image', opts.image);
  if (!existsSync(join(dir, 'config', overlay)))
    throw new CliError(
      'OPKIT_DEPLOY_OVERLAY',
      `--operator ${opts.operator}: ${join(dir, 'config', overlay)} does not exist (not an operator project?)`,
    );
  const [{ kubectl }, { renderOverlay: render }] = await Promise.all([
    import('./kubectl.js'),
    import('./overlay.js'),
  ]);
  // With -o json|yaml, stdout holds the result only.
  const progress = opts.output === 'text' ? process.stdout : process.stderr;
  const image = opts.image ?? (await localRegistryImage(dir, opts.kubeconfig, progress));
  const k = opts.kubeconfig ? ['--kubeconfig', opts.kubeconfig] : [];
  const manager = `${basename(dir)}-deploy`;
  // Loaded only here, as every command's libraries are: `opkit --help` stays fast.
  const { parseAllDocuments, stringify } = await import('yaml');
  const objects = parseAllDocuments(render(dir, image, overlay))
    .map((d) => d.toJS() as Manifest | null)
    .filter((o): o is Manifest => o !== null);
  const { provisionWebhookCertificates } = await import('./webhook-certificates.js');
  const provisioned = provisionWebhookCertificates(objects, (ns, name) => readSecret(kubectl, k, ns, name));
  const [{ planDeploy }, { liveObjects }] = await Promise.all([
    import('./deployed-objects.js'),
    import('./undeploy.js'),
  ]);
  const rendered = provisioned ? [...provisioned.objects, ...provisioned.secrets] : objects;
  // Marked, so that undeploy can tell what this deploy applied from what it finds under the same names;
  // what the cluster already holds unmarked stays unmarked, never to be deleted by undeploy.
  const headers = rendered.map((m) => ({
    apiVersion: m.apiVersion,
    kind: m.kind,
    metadata: {
      name: m.metadata.name,
      ...(m.metadata.namespace === undefined ? {} : { namespace: m.metadata.namespace }),
    },
  }));
  const plan = planDeploy(rendered, liveObjects(k, headers), manager, randomUUID());
  const manifests = plan.apply;
  for (const { object, reason } of plan.found) process.stderr.write(`found ${object}: ${reason}\n`);
  if (provisioned) process.stderr.write(`${provisioned.summary}\n`);
  const applied = kubectl(
    // The deploy owns what it applies, whoever set a field before (a `kubectl apply` of the CRD, say).
    ['apply', ...k, '--server-side', '--force-conflicts', `--field-manager=${manager}`, '-f', '-'],
    manifests.map((m) => stringify(m, { lineWidth: 0 })).join('---\n'),
  );
  if (opts.output === 'text') {
    process.stdout.write(applied);
    return;
  }
  process.stderr.write(applied);
  const { writeResult } = await import('./output.js');
  const result = deployResult(manifests, {
    operator: dir,
    image,
    overlay,
    fieldManager: manager,
    ...(provisioned ? { webhookCertificate: provisioned.summary } : {}),
  });
  await writeResult(opts.output, result, applied);
}
