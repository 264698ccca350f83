// The image `opkit deploy` makes when it is given none: the operator built on the cluster's base image, pushed
// to the cluster's local registry, named as the cluster's container runtime pulls it.
import { OciError, parseReference } from '@opkit/oci';
import { CliError } from '../cli-error.js';
import { type LocalRegistry, localOperatorImage } from '../local-registry.js';
import { isLoopbackHost } from '../loopback.js';
import { cliRegistryClient } from '../registry-client.js';
import { buildOperatorImage, operatorImageIdentity } from './build-operator-image.js';
import { DEFAULT_BASE_IMAGE } from './image-defaults.js';

/** What to build on, where to push and what to deploy. */
export interface LocalDeployImagePlan {
  /** The base: the one the cluster records, else opkit's default. */
  readonly base: string;
  /** `<host>/<package>:<version>`, pushed from this machine. */
  readonly push: string;
  /** The same image as the cluster's container runtime names it (the Deployment's image). */
  readonly deploy: string;
  /** The registries spoken to over plain HTTP: those on loopback, as local registries are. */
  readonly plainHttp: readonly string[];
}

/** The plan for an operator's image in a cluster's local registry. */
export function localDeployImagePlan(
  registry: LocalRegistry,
  operator: { readonly name: string; readonly version: string },
): LocalDeployImagePlan {
  const base = registry.baseImage ?? DEFAULT_BASE_IMAGE;
  const { push, deploy } = localOperatorImage(registry, operator);
  const hosts = new Set([registry.host, parseReference(base).registry]);
  return { base, push, deploy, plainHttp: [...hosts].filter(isLoopbackHost) };
}

/**
 * Builds the operator's image on the cluster's base (into `dist/images/<package>`, as `opkit image build`
 * does) and pushes it to the cluster's local registry; returns the reference to deploy, pinned to the pushed
 * digest: a node that ran an earlier build of the same tag would otherwise keep running it. One progress line
 * per step on `log`.
 *
 * @throws CliError naming the registry (and the cluster's help page, when it gives one) when the push fails
 */
export async function buildAndPushToLocalRegistry(o: {
  readonly operatorDir: string;
  readonly registry: LocalRegistry;
  readonly log: (line: string) => void;
}): Promise<string> {
  const plan = localDeployImagePlan(o.registry, await operatorImageIdentity(o.operatorDir));
  o.log(`building ${plan.push} on ${plan.base} (the cluster's local registry is ${o.registry.host})`);
  const built = await buildOperatorImage({
    operatorDir: o.operatorDir,
    base: plan.base,
    tag: plan.push,
    plainHttp: plan.plainHttp,
    log: (line) => o.log(`  ${line}`),
  });
  const client = cliRegistryClient({
    plainHttp: plan.plainHttp,
    onProgress: (e) => {
      if (e.phase === 'upload' && e.bytes === e.total) o.log(`  uploaded ${e.digest} (${e.total} bytes)`);
    },
  });
  let digest: string;
  try {
    const pushed = await client.push(built.layout, plan.push, { layoutRef: built.tag });
    o.log(`pushed ${pushed.reference}@${pushed.digest}`);
    digest = pushed.digest;
  } catch (error) {
    if (!(error instanceof OciError)) throw error;
    const help = o.registry.help === undefined ? '' : ` (see ${o.registry.help})`;
    throw new CliError(
      'OPKIT_DEPLOY_PUSH_FAILED',
      `cannot push ${plan.push} to the cluster's local registry: ${error.message}${help}`,
      { cause: error },
    );
  } finally {
    client.close();
  }
  return `${plan.deploy}@${digest}`;
}
