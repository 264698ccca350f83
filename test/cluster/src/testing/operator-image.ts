import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const opkit = join(import.meta.dirname, '..', '..', '..', '..', 'tools', 'opkit', 'bin', 'opkit.js');

/** An operator image pushed to the test cluster's registry. */
export interface PushedOperatorImage {
  /** `<registry>/<repository>:<tag>` for each tag, the references a Deployment can name. */
  readonly references: readonly string[];
  /** The digest the registry stored (an image index: one image per platform of the base). */
  readonly digest: string;
}

/**
 * Builds an operator's image as users do (`opkit image build`, on the cluster's locally built Node base image)
 * and pushes it to the test cluster's registry under each tag (`opkit image push`).
 */
export async function pushOperatorImage(options: {
  readonly operatorDir: string;
  /** `127.0.0.1:<port>` of the cluster's registry. */
  readonly registry: string;
  readonly repository: string;
  /** Pushed under each of these tags (one build). */
  readonly tags: readonly string[];
  /** Where the OCI layout is written. */
  readonly layoutDir: string;
}): Promise<PushedOperatorImage> {
  const references = options.tags.map((tag) => `${options.registry}/${options.repository}:${tag}`);
  const [reference] = references;
  if (!reference) throw new Error('pushOperatorImage needs at least one tag');
  await run(
    process.execPath,
    [
      opkit,
      'image',
      'build',
      '--operator',
      options.operatorDir,
      '--base',
      `${options.registry}/opkit/node:24`,
      '--plain-http',
      '--tag',
      reference,
      '-o',
      options.layoutDir,
    ],
    { timeout: 180_000 },
  );
  const digests = new Set<string>();
  for (const target of references) {
    const pushed = await run(
      process.execPath,
      [opkit, 'image', 'push', options.layoutDir, target, '--plain-http'],
      { timeout: 180_000 },
    );
    const digest = /^pushed \S+@(sha256:[0-9a-f]{64})$/m.exec(pushed.stdout)?.[1];
    if (!digest) throw new Error(`opkit image push printed no digest: ${pushed.stdout}`);
    digests.add(digest);
  }
  const [digest] = digests;
  if (!digest || digests.size !== 1)
    throw new Error(`one image, several digests: ${[...digests].join(', ')}`);
  return { references, digest };
}
