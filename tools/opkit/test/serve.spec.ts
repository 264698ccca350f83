// `opkit catalog serve` against `opm serve`: both serve the same catalog, a gRPC client built from our
// registry.proto sends both the same requests, and the answers (or status codes and messages) must agree.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentials, loadPackageDefinition, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { loadCatalog } from '@opkit/olm';
import { waitForServing } from '@opkit/olm/registry';
import { opmBinary, opmServeArgs, releasedData, workspaceRoot } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = workspaceRoot;
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
// A JSON stream of FBC documents (`.fbc`: opm reads any file name; biome would take `.json` for one value).
const fixture = join(import.meta.dirname, 'fixtures', 'registry-catalog');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-serve-'));
const started: ChildProcess[] = [];
const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: a client generated at run time from the .proto has no static type.
type DynamicClient = any;

const definition = loadSync(createRequire(import.meta.url).resolve('@opkit/olm/registry.proto'), {
  keepCase: true,
  defaults: true,
  arrays: true,
});
// biome-ignore lint/suspicious/noExplicitAny: see DynamicClient.
const Registry = (loadPackageDefinition(definition) as any).api.Registry;

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startOpm(dir: string): Promise<string> {
  const port = await freePort();
  const child = spawn(
    await opmBinary(),
    opmServeArgs(dir, { port, terminationLog: join(scratch, 'opm-termination.log') }),
    { stdio: 'ignore' },
  );
  started.push(child);
  const address = `127.0.0.1:${port}`;
  await waitForServing(address, 60_000);
  return address;
}

/** Starts `opkit catalog serve` on a free port; resolves with its address and its log so far. */
async function startOpkit(
  ...args: string[]
): Promise<{ address: string; child: ChildProcess; log: () => string }> {
  const child = spawn(
    process.execPath,
    [opkit, 'catalog', 'serve', ...args, '--port', '0', '--host', '127.0.0.1'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.push(child);
  let log = '';
  child.stdout!.on('data', (d: Buffer) => {
    log += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /listening on (\S+)/.exec(log);
    if (m) return { address: m[1]!, child, log: () => log };
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`opkit catalog serve did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Outcome = { ok: unknown } | { code: number; message: string };

function unary(client: DynamicClient, method: string, request: object): Promise<Outcome> {
  return new Promise((resolve) => {
    client[method](request, (err: ServiceError | null, res: unknown) =>
      resolve(err ? { code: err.code, message: err.details } : { ok: normalize(res) }),
    );
  });
}

function stream(client: DynamicClient, method: string, request: object): Promise<Outcome> {
  return new Promise((resolve) => {
    const items: unknown[] = [];
    const call = client[method](request);
    call.on('data', (d: unknown) => items.push(normalize(d)));
    call.on('error', (err: ServiceError) => resolve({ code: err.code, message: err.details }));
    // opm sends these in Go map order: compare as sorted lists.
    call.on('end', () => resolve({ ok: items.map((i) => JSON.stringify(i)).sort() }));
  });
}

/** csvJson and objects compared as JSON values: a synthesized CSV may order nested keys differently. */
function normalize(message: unknown): unknown {
  if (message === null || typeof message !== 'object') return message;
  const m = { ...(message as Record<string, unknown>) };
  if (typeof m.csvJson === 'string' && m.csvJson !== '') m.csvJson = JSON.parse(m.csvJson);
  if (Array.isArray(m.object)) m.object = m.object.map((o: string) => JSON.parse(o));
  return m;
}

interface Query {
  readonly method: string;
  readonly request: object;
  readonly streaming: boolean;
}

const gvkKey = (g: { group: string; version: string; kind: string }) => `${g.group}/${g.version}/${g.kind}`;

/** Every method with requests that hit and miss, derived from the catalog itself. */
async function queriesFor(dir: string): Promise<Query[]> {
  const catalog = await loadCatalog(dir);
  const u = (method: string, request: object): Query => ({ method, request, streaming: false });
  const s = (method: string, request: object): Query => ({ method, request, streaming: true });
  const q: Query[] = [s('ListPackages', {}), s('ListBundles', {})];
  const gvks = new Map<string, { group: string; version: string; kind: string }>();
  for (const b of catalog.bundles)
    for (const p of b.properties)
      if (p.type === 'olm.gvk')
        gvks.set(gvkKey(p.value as never), p.value as { group: string; version: string; kind: string });
  gvks.set('missing', { group: 'nothing.example.com', version: 'v1', kind: 'Nothing' });
  for (const g of gvks.values()) {
    q.push(s('GetChannelEntriesThatProvide', g), s('GetLatestChannelEntriesThatProvide', g));
    q.push(u('GetDefaultBundleThatProvides', g));
  }
  for (const p of catalog.packages) q.push(u('GetPackage', { name: p.name }));
  q.push(u('GetPackage', { name: 'no-such-package' }));
  const names = new Set(catalog.bundles.map((b) => b.name));
  for (const ch of catalog.channels) {
    q.push(u('GetBundleForChannel', { pkgName: ch.package, channelName: ch.name }));
    for (const e of ch.entries) {
      q.push(u('GetBundle', { pkgName: ch.package, channelName: ch.name, csvName: e.name }));
      for (const target of [e.replaces, ...(e.skips ?? [])]) if (target) names.add(target);
    }
    q.push(u('GetBundle', { pkgName: ch.package, channelName: ch.name, csvName: 'no-such-bundle' }));
    q.push(u('GetBundle', { pkgName: ch.package, channelName: 'no-such-channel', csvName: 'x' }));
    q.push(u('GetBundleForChannel', { pkgName: ch.package, channelName: 'no-such-channel' }));
    for (const name of [...names, 'no-such-bundle']) {
      // opm picks among several replacing entries in map order; only unambiguous requests are compared.
      const matches = ch.entries.filter((e) => e.replaces === name || (e.skips ?? []).includes(name));
      if (matches.length <= 1) {
        q.push(u('GetBundleThatReplaces', { csvName: name, pkgName: ch.package, channelName: ch.name }));
      }
    }
    q.push(u('GetBundleThatReplaces', { csvName: 'x', pkgName: ch.package, channelName: 'no-such-channel' }));
  }
  q.push(u('GetBundle', { pkgName: 'no-such-package', channelName: 'stable', csvName: 'x' }));
  q.push(u('GetBundleForChannel', { pkgName: 'no-such-package', channelName: 'stable' }));
  q.push(u('GetBundleThatReplaces', { csvName: 'x', pkgName: 'no-such-package', channelName: 'stable' }));
  for (const name of [...names, 'no-such-bundle'])
    q.push(s('GetChannelEntriesThatReplace', { csvName: name }));
  return q;
}

async function compareAll(
  opmAddress: string,
  opkitAddress: string,
  queries: readonly Query[],
): Promise<number> {
  const opm = new Registry(opmAddress, credentials.createInsecure());
  const ours = new Registry(opkitAddress, credentials.createInsecure());
  try {
    let errors = 0;
    for (const { method, request, streaming } of queries) {
      const call = streaming ? stream : unary;
      const [expected, actual] = await Promise.all([call(opm, method, request), call(ours, method, request)]);
      if ('code' in expected) errors++;
      expect(actual, `${method} ${JSON.stringify(request)}`).toEqual(expected);
    }
    return errors;
  } finally {
    opm.close();
    ours.close();
  }
}

beforeAll(async () => {
  await opmBinary();
});

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('opkit catalog serve answers exactly as opm serve', () => {
  it('on a catalog with several channels, skips, skipRange, deprecations (of inline and csv.metadata bundles), csv.metadata and dependencies', async () => {
    const [opmAddress, ours] = await Promise.all([startOpm(fixture), startOpkit(fixture)]);
    const queries = await queriesFor(fixture);
    const errors = await compareAll(opmAddress, ours.address, queries);
    // The comparison covered both answers and not-found errors.
    expect(queries.length).toBeGreaterThan(60);
    expect(errors).toBeGreaterThan(10);
    // …and deprecations: a bundle known only by its CSV metadata carries its own, as OLM reads it.
    const client = new Registry(ours.address, credentials.createInsecure());
    try {
      const request = {
        pkgName: 'widget-operator',
        channelName: 'stable',
        csvName: 'widget-operator.v1.1.0',
      };
      const served = (await unary(client, 'GetBundle', request)) as {
        ok: { object: unknown[]; csvJson: { kind: string }; deprecation: { message: string } | null };
      };
      expect(served.ok.deprecation?.message).toBe(
        '1.1.0 is known only by its CSV metadata and is deprecated too.',
      );
      // opm builds a CSV from the metadata and serves it as the bundle's only object.
      expect(served.ok.csvJson.kind).toBe('ClusterServiceVersion');
      expect(served.ok.object).toEqual([served.ok.csvJson]);
    } finally {
      client.close();
    }
  });

  it('on our catalog: the directory, with --inline-bundles (its bundles are inline already), and its image', async () => {
    const dir = releasedData.catalogConfigs;
    const layout = join(scratch, 'catalog-layout');
    await run(process.execPath, [opkit, 'catalog', 'image', dir, '--layout', layout, '--tag', 'v1'], {
      cwd: root,
    });
    const [opmAddress, plain, inline, image] = await Promise.all([
      startOpm(dir),
      startOpkit(dir),
      startOpkit(dir, '--inline-bundles'),
      startOpkit(`${layout}:v1`),
    ]);
    expect(image.log()).toMatch(/serving .*catalog-layout:v1 \(sha256:[0-9a-f]{64}\): 2 packages, 5 bundles/);
    const queries = await queriesFor(dir);
    await compareAll(opmAddress, plain.address, queries);
    await compareAll(opmAddress, inline.address, queries);
    await compareAll(opmAddress, image.address, queries);
  });

  it('--inline-bundles fills in bundles without inline objects from the bundle directories', async () => {
    // Our catalog with image references instead of inline objects, as a catalog of pushed bundles looks.
    const dir = join(scratch, 'by-image');
    cpSync(releasedData.catalogConfigs, dir, { recursive: true });
    for (const pkg of ['memcached-operator', 'redis-operator']) {
      const file = join(dir, pkg, 'catalog.json');
      const docs = readFileSync(file, 'utf8')
        .split(/\n(?=\{)/)
        .map(
          (d) =>
            JSON.parse(d) as {
              schema: string;
              name: string;
              image?: string;
              properties?: { type: string }[];
            },
        );
      for (const d of docs) {
        if (d.schema !== 'olm.bundle') continue;
        d.image = `example.com/${d.name}:bundle`;
        d.properties = d.properties!.filter((p) => p.type !== 'olm.bundle.object');
      }
      writeFileSync(file, docs.map((d) => JSON.stringify(d)).join('\n'));
    }
    const [opmAddress, inline] = await Promise.all([
      startOpm(releasedData.catalogConfigs),
      startOpkit(dir, '--inline-bundles', '--bundles-dir', releasedData.bundles),
    ]);
    const expected = (await stream(
      new Registry(opmAddress, credentials.createInsecure()),
      'ListBundles',
      {},
    )) as {
      ok: string[];
    };
    const actual = (await stream(
      new Registry(inline.address, credentials.createInsecure()),
      'ListBundles',
      {},
    )) as {
      ok: string[];
    };
    expect(actual.ok).toHaveLength(expected.ok.length);
    expect(actual).toEqual(expected);

    // Without a bundle directory to fall back on, serving inline is refused with the bundle named.
    const missing = spawn(
      process.execPath,
      [opkit, 'catalog', 'serve', dir, '--inline-bundles', '--bundles-dir', scratch, '--port', '0'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    missing.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const [code] = await once(missing, 'exit');
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /bundle "memcached-operator\.v0\.1\.0": no olm\.bundle\.object properties to serve inline/,
    );
  });

  it('from a serve cache written with --cache-only, as opm serve does from its own', async () => {
    const dir = join(scratch, 'cached');
    cpSync(fixture, dir, { recursive: true });
    const cache = join(scratch, 'serve-cache');
    const write = spawn(
      process.execPath,
      [opkit, 'catalog', 'serve', dir, '--cache-dir', cache, '--cache-only'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const [written] = await once(write, 'exit');
    expect(written).toBe(0);
    const [opmAddress, ours] = await Promise.all([startOpm(dir), startOpkit(dir, '--cache-dir', cache)]);
    expect(ours.log()).toContain(`serve cache ${cache}: used`);
    expect(await compareAll(opmAddress, ours.address, await queriesFor(dir))).toBeGreaterThan(10);

    // A cache made from other files stops the server, naming why, unless told to rebuild it.
    writeFileSync(join(dir, 'catalog.fbc'), `${readFileSync(join(dir, 'catalog.fbc'), 'utf8')}\n`);
    const stale = spawn(
      process.execPath,
      [opkit, 'catalog', 'serve', dir, '--cache-dir', cache, '--port', '0'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    stale.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const [code] = await once(stale, 'exit');
    expect(code).toBe(1);
    expect(stderr).toBe(
      `opkit: serve cache ${cache} cannot be used for ${dir}: the catalog changed since it was written; rebuild it with \`opkit catalog serve ${dir} --cache-dir ${cache} --cache-only\`, or serve without --cache-enforce-integrity\n`,
    );
    const rebuilt = await startOpkit(dir, '--cache-dir', cache, '--no-cache-enforce-integrity');
    expect(rebuilt.log()).toContain(
      `serve cache ${cache}: written (the catalog changed since it was written)`,
    );
  });

  it('refuses an invalid catalog with opm validate’s message, and stops on SIGTERM', async () => {
    const dir = join(scratch, 'invalid');
    cpSync(fixture, dir, { recursive: true });
    const file = join(dir, 'catalog.fbc');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('"defaultChannel": "alpha"', '"defaultChannel": "gamma"'),
    );
    const child = spawn(process.execPath, [opkit, 'catalog', 'serve', dir, '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('the catalog is invalid, refusing to serve it');
    expect(stderr).toContain('invalid package "volume-operator"');

    const ours = await startOpkit(fixture);
    ours.child.kill('SIGTERM');
    const [exitCode] = await once(ours.child, 'exit');
    expect(exitCode).toBe(0);
    expect(ours.log()).toMatch(/loaded in \d+ ms/);
    expect(ours.log()).toContain('SIGTERM: shutting down');
  });
});
