import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { generateKustomizeManifests } from '@opkit/olm/action/generate-kustomize-manifests';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { createProgram } from './program.js';

/** An operator's project, found through its package as npm linked it into the workspace. */
const projectOf = (pkg: string): string =>
  dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
const operators = [
  { dir: projectOf('@opkit/memcached-operator'), pkg: 'memcached-operator' },
  { dir: projectOf('@opkit/redis-operator'), pkg: 'redis-operator' },
];

const temps: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'opkit-kustomize-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** (name, version, kind) of every version of the project's CRDs, newest version first within a CRD. */
function crdVersionKeys(projectDir: string): string[] {
  const dir = join(projectDir, 'config/crd/bases');
  return readdirSync(dir)
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()))
    .flatMap(
      (crd: {
        spec: { group: string; names: { plural: string; kind: string }; versions: { name: string }[] };
      }) =>
        crd.spec.versions.map(
          (v) => `${crd.spec.names.plural}.${crd.spec.group} ${v.name} ${crd.spec.names.kind}`,
        ),
    )
    .sort();
}

function ownedKeys(csvText: string): string[] {
  const csv = parse(csvText) as {
    spec: { customresourcedefinitions: { owned: { name: string; version: string; kind: string }[] } };
  };
  return csv.spec.customresourcedefinitions.owned.map((o) => `${o.name} ${o.version} ${o.kind}`).sort();
}

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('generateKustomizeManifests', () => {
  for (const op of operators) {
    it(`writes a fresh base for ${op.pkg} whose owned CRDs are the CRDs' versions`, () => {
      const out = temp();
      const result = generateKustomizeManifests({ projectDir: op.dir, inputDir: out, outputDir: out });
      expect(result.files.map((f) => f.changed)).toEqual([true, true]);
      const csvText = readFileSync(join(out, 'bases', `${op.pkg}.clusterserviceversion.yaml`), 'utf8');
      expect(ownedKeys(csvText)).toEqual(crdVersionKeys(op.dir));
      const csv = parse(csvText);
      expect(csv.metadata.name).toBe(`${op.pkg}.v0.0.0`);
      expect(csv.spec.description).toBe(
        JSON.parse(readFileSync(join(op.dir, 'package.json'), 'utf8')).description,
      );
      expect(csvText).not.toMatch(/TODO|your\.domain|Maintainer Name/);
      const kustomization = parse(readFileSync(join(out, 'kustomization.yaml'), 'utf8'));
      expect(kustomization.resources[0]).toBe(`bases/${op.pkg}.clusterserviceversion.yaml`);
      for (const r of kustomization.resources.slice(1))
        expect(resolve(out, r)).toMatch(/config\/(default|samples)$/);
      // A second run changes nothing.
      const again = generateKustomizeManifests({ projectDir: op.dir, inputDir: out, outputDir: out });
      expect(again.files).toEqual([{ path: expect.any(String), changed: false }]);
      expect(readFileSync(join(out, 'bases', `${op.pkg}.clusterserviceversion.yaml`), 'utf8')).toBe(csvText);
    });

    it(`leaves the committed base of ${op.pkg} byte-identical (it is up to date)`, () => {
      const out = temp();
      generateKustomizeManifests({ projectDir: op.dir, outputDir: out });
      const committed = readFileSync(
        join(op.dir, 'config/manifests/bases', `${op.pkg}.clusterserviceversion.yaml`),
        'utf8',
      );
      expect(readFileSync(join(out, 'bases', `${op.pkg}.clusterserviceversion.yaml`), 'utf8')).toBe(
        committed,
      );
      expect(ownedKeys(committed)).toEqual(crdVersionKeys(op.dir));
    });
  }

  it('keeps random edits of the hand-written fields across regenerations, and only re-derives owned CRDs', () => {
    const op = operators[0]!;
    for (let seed = 1; seed <= 25; seed++) {
      const random = seeded(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
      const word = () => Math.floor(random() * 1e9).toString(36);
      const dir = temp();
      cpSync(join(op.dir, 'config/manifests'), dir, { recursive: true });
      const file = join(dir, 'bases', `${op.pkg}.clusterserviceversion.yaml`);
      const csv = parse(readFileSync(file, 'utf8'));
      const edits: Record<string, () => void> = {
        description: () => (csv.spec.description = `${word()} ${word()}\n`),
        displayName: () => (csv.spec.displayName = word()),
        keywords: () => (csv.spec.keywords = [word(), word()]),
        maintainers: () => (csv.spec.maintainers = [{ name: word(), email: `${word()}@example.com` }]),
        provider: () => (csv.spec.provider = { name: word(), url: `https://${word()}.example.com` }),
        links: () => (csv.spec.links = [{ name: word(), url: `https://${word()}.example.com` }]),
        icon: () => (csv.spec.icon = [{ base64data: word(), mediatype: 'image/png' }]),
        annotation: () => (csv.metadata.annotations[`example.com/${word()}`] = word()),
        installModes: () => (csv.spec.installModes[0].supported = !csv.spec.installModes[0].supported),
        ownedDescription: () =>
          (pick(csv.spec.customresourcedefinitions.owned as { description: string }[]).description = word()),
        specDescriptor: () =>
          (pick(
            csv.spec.customresourcedefinitions.owned as { specDescriptors: unknown[] }[],
          ).specDescriptors = [
            { path: word(), displayName: word(), 'x-descriptors': [`urn:alm:descriptor:${word()}`] },
          ]),
      };
      const names = Object.keys(edits);
      const chosen = names.filter(() => random() < 0.5);
      for (const n of chosen) edits[n]!();
      // A missing owned entry comes back; one for a version the CRDs do not have goes.
      const owned = csv.spec.customresourcedefinitions.owned as { name: string; version: string }[];
      const dropped = random() < 0.5 ? owned.splice(0, 1)[0] : undefined;
      owned.push({ ...owned[0]!, version: 'v9' } as (typeof owned)[number]);
      writeFileSync(file, stringify(csv));
      const expected = structuredClone(csv);

      generateKustomizeManifests({ projectDir: op.dir, inputDir: dir, outputDir: dir });
      const once = readFileSync(file, 'utf8');
      const got = parse(once);
      expect(ownedKeys(once), `seed ${seed}`).toEqual(crdVersionKeys(op.dir));
      const { customresourcedefinitions: gotCrds, ...gotRest } = got.spec;
      const { customresourcedefinitions: expectedCrds, ...expectedRest } = expected.spec;
      expect(gotRest, `seed ${seed}: ${chosen.join(', ')}`).toEqual(expectedRest);
      expect(got.metadata, `seed ${seed}`).toEqual(expected.metadata);
      for (const entry of expectedCrds.owned as { version: string }[]) {
        if (entry.version === 'v9') continue;
        expect(gotCrds.owned, `seed ${seed}`).toContainEqual(entry);
      }
      if (dropped !== undefined)
        expect(gotCrds.owned.map((o: { version: string }) => o.version)).toContain(dropped.version);

      generateKustomizeManifests({ projectDir: op.dir, inputDir: dir, outputDir: dir });
      expect(readFileSync(file, 'utf8'), `seed ${seed}: not idempotent`).toBe(once);
    }
  });

  it('refuses a --package that does not match the existing base CSV, naming both', () => {
    const op = operators[0]!;
    expect(() =>
      generateKustomizeManifests({ projectDir: op.dir, packageName: 'redis-operator', outputDir: temp() }),
    ).toThrow(
      /^--package redis-operator does not match the base CSV .*memcached-operator\.clusterserviceversion\.yaml \(package memcached-operator\)$/,
    );
    const dir = temp();
    cpSync(join(op.dir, 'config/manifests'), dir, { recursive: true });
    const file = join(dir, 'bases', `${op.pkg}.clusterserviceversion.yaml`);
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('name: memcached-operator.v0.0.0', 'name: other-operator.v0.0.0'),
    );
    expect(() => generateKustomizeManifests({ projectDir: op.dir, inputDir: dir, outputDir: dir })).toThrow(
      /^--package memcached-operator does not match .* \(metadata\.name "other-operator\.v0\.0\.0", package other-operator\)$/,
    );
  });

  it('refuses an output dir that is a file, an unknown project and an invalid package name', () => {
    const op = operators[0]!;
    const file = join(temp(), 'file');
    writeFileSync(file, '');
    expect(() => generateKustomizeManifests({ projectDir: op.dir, outputDir: file })).toThrow(
      /--output-dir .*file: .*file is a file, not a directory/,
    );
    expect(() => generateKustomizeManifests({ projectDir: join(temp(), 'operators/nope') })).toThrow(
      /--project .*operators\/nope: no such directory/,
    );
    expect(() => generateKustomizeManifests({ projectDir: temp() })).toThrow(
      /no package\.json, not an opkit project/,
    );
    expect(() =>
      generateKustomizeManifests({ projectDir: op.dir, packageName: 'Bad_Name', outputDir: temp() }),
    ).toThrow(/--package "Bad_Name": lower-case letters/);
  });

  it('opkit generate kustomize manifests lists the files as json and refuses --interactive', async () => {
    const out = temp();
    const args = ['generate', 'kustomize', 'manifests', '--operator', operators[1]!.dir, '--output-dir', out];
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      await createProgram().parseAsync([...args, '-o', 'json'], { from: 'user' });
      await expect(createProgram().parseAsync([...args, '--interactive'], { from: 'user' })).rejects.toThrow(
        '--interactive: opkit never prompts; only false is taken',
      );
    } finally {
      spy.mockRestore();
    }
    const files = JSON.parse(written.join('')) as { path: string; changed: boolean }[];
    expect(files.map((f) => [f.path.split('/').pop(), f.changed])).toEqual([
      ['redis-operator.clusterserviceversion.yaml', true],
      ['kustomization.yaml', true],
    ]);
  });

  it('takes the project as --operator, as every command does, and still as the hidden --project', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      for (const flag of ['--operator', '--project']) {
        const out = temp();
        const args = ['generate', 'kustomize', 'manifests', flag, operators[1]!.dir, '--output-dir', out];
        await createProgram().parseAsync([...args, '-o', 'json'], { from: 'user' });
      }
      const help = createProgram()
        .commands.find((c) => c.name() === 'generate')
        ?.commands.find((c) => c.name() === 'kustomize')
        ?.commands.find((c) => c.name() === 'manifests')
        ?.helpInformation();
      expect(help).toContain('--operator <dir>');
      expect(help).not.toContain('--project');
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toContain('redis-operator.clusterserviceversion.yaml');
  });
});
