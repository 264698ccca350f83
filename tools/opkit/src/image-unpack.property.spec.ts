// Random layers of links (relative and absolute, through directories, climbing with `..`, links to links, hard
// links to links), unpacked and then read by every reader of unpacked trees: nothing outside the root is ever
// written or read, whatever the unpacker accepts.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage } from '@opkit/oci';
import { unpackImageLayers } from '@opkit/olm/action/image-unpack';
import { loadBundle } from '@opkit/olm/bundle';
import { loadCatalog } from '@opkit/olm/catalog/files';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type RawEntry, rawLayer } from '../test/support/hostile-images.js';

const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
const numRuns = Number(process.env.OPKIT_PROPERTY_CASES ?? 120);
const scratch = mkdtempSync(join(tmpdir(), 'opkit-unpack-property-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What the host file holds: a catalog package, so that any reader that reaches it would return it. */
const SECRET = 'schema: olm.package\nname: host-secret\n';
const INSIDE = 'schema: olm.package\nname: inside\n';
/** Stands for the absolute path of the directory around the root, known only once it is made. */
const OUTER = '@outer';

const names = ['configs', 'manifests', 'metadata', 'd', 'l1', 'l2', 'l3', 'x.yaml'] as const;
const path = fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }).map((p) => p.join('/'));
const hop = fc.constantFrom('..', '..', '.', ...names, 'secret.yaml', 'sentinel');
const target = fc.oneof(
  { weight: 6, arbitrary: fc.array(hop, { minLength: 1, maxLength: 5 }).map((p) => p.join('/')) },
  { weight: 1, arbitrary: fc.constantFrom(`${OUTER}/secret.yaml`, `${OUTER}/sentinel`, '/', '/dev/zero') },
);
const entry: fc.Arbitrary<RawEntry> = fc.oneof(
  fc.record({ path, type: fc.constant('file' as const), content: fc.constant(INSIDE) }),
  fc.record({ path, type: fc.constant('dir' as const) }),
  { weight: 3, arbitrary: fc.record({ path, type: fc.constant('symlink' as const), target }) },
  fc.record({ path, type: fc.constant('hardlink' as const), target }),
);

/**
 * The readers of unpacked trees where the CLI points them (the image root, its `configs`), and what they return
 * or say. A starting directory that a link takes out of the root is a failure of its own.
 */
async function readEverything(root: string): Promise<string> {
  const said: string[] = [];
  const attempt = async (read: () => unknown): Promise<void> => {
    try {
      said.push(JSON.stringify(await read()));
    } catch (error) {
      said.push(String((error as Error).message));
    }
  };
  for (const dir of ['', 'configs']) {
    const real = realpathOrUndefined(join(root, dir));
    if (real === undefined) continue;
    expect(`${real}/`.startsWith(`${realpathSync(root)}/`), `${dir} leads to ${real}`).toBe(true);
    await attempt(() => loadCatalog(join(root, dir)));
    await attempt(() => loadBundle(join(root, dir)));
  }
  return said.join('\n');
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

describe('unpacking and reading random link chains', () => {
  it(`never writes or reads outside the root (seeded, ${numRuns} layers)`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 12 }), async (raw) => {
        const outer = join(scratch, String(run++));
        const root = join(outer, 'a', 'root');
        mkdirSync(root, { recursive: true });
        mkdirSync(join(outer, 'sentinel'));
        writeFileSync(join(outer, 'secret.yaml'), SECRET);
        const entries = raw.map((e) => (e.target ? { ...e, target: e.target.replace(OUTER, outer) } : e));
        const image = buildImage([rawLayer(entries)]);
        const unpacked = await unpackImageLayers(image, root).then(
          () => true,
          () => false,
        );
        const said = unpacked ? await readEverything(root) : '';
        expect(said).not.toContain('host-secret');
        expect(readdirSync(join(outer, 'sentinel'))).toEqual([]);
        expect(readFileSync(join(outer, 'secret.yaml'), 'utf8')).toBe(SECRET);
        expect(readdirSync(outer).sort()).toEqual(['a', 'secret.yaml', 'sentinel']);
        expect(readdirSync(join(outer, 'a'))).toEqual(['root']);
        expect(lstatSync(join(outer, 'secret.yaml')).nlink).toBe(1);
        rmSync(outer, { recursive: true, force: true });
      }),
      { seed, numRuns },
    );
  }, 60_000);
});
