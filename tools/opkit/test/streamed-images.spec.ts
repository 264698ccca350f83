// Images pulled by the commands that unpack them: layers stream to disk and unpack from there, so memory does
// not grow with them, and `catalog serve` stopped during a pull leaves no temp dir behind.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type Dirent, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Header } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const opkit = join(import.meta.dirname, '..', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-streamed-'));
const MiB = 1024 * 1024;
const CONFIGS_LABEL = 'operators.operatorframework.io.index.configs.v1';
const TAR_LAYER = 'application/vnd.oci.image.layer.v1.tar';

/**
 * A catalog image's only layer, an uncompressed tar generated as it is sent: `/configs/<name>/catalog.json`
 * and a `padding` file of `paddingBytes` bytes beside it, never held whole anywhere.
 */
class GeneratedLayer {
  readonly digest: string;
  readonly size: number;
  readonly #head: Buffer;
  readonly #paddingBytes: number;
  static readonly #fill = randomBytes(MiB);

  constructor(name: string, paddingBytes: number) {
    const catalog = Buffer.from(`{"schema":"olm.package","name":"${name}","defaultChannel":"stable"}\n`);
    const header = (path: string, type: 'Directory' | 'File', size: number): Buffer => {
      const h = new Header({ path, type, size, mode: type === 'File' ? 0o644 : 0o755, mtime: new Date(0) });
      h.encode();
      return h.block as Buffer;
    };
    this.#head = Buffer.concat([
      header('configs/', 'Directory', 0),
      header(`configs/${name}/`, 'Directory', 0),
      header(`configs/${name}/catalog.json`, 'File', catalog.length),
      catalog,
      Buffer.alloc(padTo512(catalog.length)),
      header('padding', 'File', paddingBytes),
    ]);
    this.#paddingBytes = paddingBytes;
    const hash = createHash('sha256');
    let size = 0;
    for (const chunk of this.chunks()) {
      hash.update(chunk);
      size += chunk.length;
    }
    this.digest = `sha256:${hash.digest('hex')}`;
    this.size = size;
  }

  *chunks(): Generator<Buffer> {
    yield this.#head;
    for (let left = this.#paddingBytes; left > 0; left -= MiB)
      yield GeneratedLayer.#fill.subarray(0, Math.min(MiB, left));
    yield Buffer.alloc(padTo512(this.#paddingBytes) + 1024);
  }
}

function padTo512(n: number): number {
  return (512 - (n % 512)) % 512;
}

/** Manifest and config of a catalog image whose only layer is `layer`. */
function catalogImage(layer: GeneratedLayer): { manifest: Buffer; config: Buffer; configDigest: string } {
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Labels: { [CONFIGS_LABEL]: '/configs' } },
      rootfs: { type: 'layers', diff_ids: [layer.digest] },
    }),
  );
  const configDigest = `sha256:${createHash('sha256').update(config).digest('hex')}`;
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: configDigest,
        size: config.length,
      },
      layers: [{ mediaType: TAR_LAYER, digest: layer.digest, size: layer.size }],
    }),
  );
  return { manifest, config, configDigest };
}

/** The size of the largest file below `dir` (0 when there is none); files may come and go meanwhile. */
function largestFile(dir: string): number {
  let largest = 0;
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    try {
      largest = Math.max(largest, statSync(join(entry.parentPath, entry.name)).size);
    } catch {
      // Removed since it was listed.
    }
  }
  return largest;
}

/**
 * While set, the `big` layer pauses after `sentBytes` until a file below `dir` holds `onDiskBytes` (the layer
 * streams to disk as it arrives), and is dropped when none does within 10 s (it was held in memory).
 */
let diskWatch: { dir: string; sentBytes: number; onDiskBytes: number; onDisk?: boolean } | undefined;

async function untilOnDisk(watch: NonNullable<typeof diskWatch>): Promise<boolean> {
  const deadline = performance.now() + 10_000;
  watch.onDisk = false;
  while (!watch.onDisk && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    watch.onDisk = largestFile(watch.dir) >= watch.onDiskBytes;
  }
  return watch.onDisk;
}

/**
 * Sends the layer with back-pressure; `stall` sends its first MiB and then nothing, keeping the answer open;
 * `watch` pauses it as {@link diskWatch} says.
 */
function sendLayer(
  res: ServerResponse,
  layer: GeneratedLayer,
  stall: boolean,
  onStalled: () => void,
  watch?: NonNullable<typeof diskWatch>,
): void {
  res.writeHead(200, { 'content-type': TAR_LAYER, 'content-length': String(layer.size) });
  const chunks = layer.chunks();
  let sent = 0;
  let paused = false;
  const next = (): void => {
    for (;;) {
      if (stall && sent >= MiB) {
        onStalled();
        return;
      }
      if (watch !== undefined && !paused && sent >= watch.sentBytes) {
        paused = true;
        void untilOnDisk(watch).then((go) => (go ? next() : res.destroy()));
        return;
      }
      const { value, done } = chunks.next();
      if (done) {
        res.end();
        return;
      }
      sent += value.length;
      if (!res.write(value)) {
        res.once('drain', next);
        return;
      }
    }
  };
  res.on('close', () => res.removeAllListeners('drain'));
  next();
}

/** Repositories `<name>/catalog:v1` of the registry; `stall` holds its layer half sent. */
const layers = new Map<string, GeneratedLayer>();
let registryHost = '';
const stalled: Array<() => void> = [];
const registry = createServer((req, res) => {
  const m = /^\/v2\/(\w+)\/catalog\/(manifests|blobs)\/(.+)$/.exec(req.url ?? '');
  const layer = m === null ? undefined : layers.get(m[1] as string);
  if (req.url === '/v2/') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    return;
  }
  if (m === null || layer === undefined) {
    res.writeHead(404).end();
    return;
  }
  const [, name, kind, ref] = m as unknown as [string, string, string, string];
  const image = catalogImage(layer);
  if (kind === 'manifests') {
    res.writeHead(200, {
      'content-type': 'application/vnd.oci.image.manifest.v1+json',
      'content-length': String(image.manifest.length),
    });
    res.end(req.method === 'HEAD' ? undefined : image.manifest);
  } else if (ref === image.configDigest) {
    res.writeHead(200, { 'content-length': String(image.config.length) }).end(image.config);
  } else if (ref === layer.digest) {
    sendLayer(
      res,
      layer,
      name === 'stall',
      () => {
        for (const notify of stalled.splice(0)) notify();
      },
      name === 'big' ? diskWatch : undefined,
    );
  } else res.writeHead(404).end();
});

/** A fresh, empty temporary directory for one CLI run. */
function tempDir(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  return dir;
}

/**
 * `catalog render` of `name`'s image in the registry, with `tmp` as its temp dir: its output and the most
 * memory its process held (the process's own maximum resident set, reported as it exits).
 */
function render(name: string, tmp: string): Promise<{ stdout: string; maxRssMiB: number }> {
  const reportRss =
    'data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss "+process.resourceUsage().maxRSS+"\\n"))';
  const args = [
    '--import',
    reportRss,
    opkit,
    'catalog',
    'render',
    '--plain-http',
    `${registryHost}/${name}/catalog:v1`,
  ];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env: { ...process.env, TMPDIR: tmp } }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`catalog render ${name} failed: ${stderr}`));
        return;
      }
      const kib = /maxrss (\d+)/.exec(stderr);
      if (kib === null) reject(new Error(`no maxrss in ${stderr}`));
      else resolve({ stdout, maxRssMiB: Number(kib[1]) / 1024 });
    });
  });
}

beforeAll(async () => {
  layers.set('small', new GeneratedLayer('small', MiB));
  layers.set('big', new GeneratedLayer('big', 256 * MiB));
  layers.set('stall', new GeneratedLayer('stall', 64 * MiB));
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  registryHost = `127.0.0.1:${(registry.address() as AddressInfo).port}`;
});

afterAll(() => {
  registry.closeAllConnections();
  registry.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('images pulled to disk', () => {
  it('catalog render of an image with a 256 MiB layer streams it to disk as it arrives', async () => {
    const small = await render('small', tempDir('render-small'));
    const tmp = tempDir('render-big');
    const watch = { dir: tmp, sentBytes: 128 * MiB, onDiskBytes: 96 * MiB };
    diskWatch = watch;
    const big = await render('big', tmp).finally(() => {
      diskWatch = undefined;
    });
    console.log(
      `catalog render max RSS: 1 MiB layer ${small.maxRssMiB.toFixed(0)} MiB, 256 MiB layer ${big.maxRssMiB.toFixed(0)} MiB`,
    );
    expect(JSON.parse(big.stdout)).toMatchObject({ schema: 'olm.package', name: 'big' });
    // 96 MiB were in a file while the registry had sent 128 MiB of the 256: streamed, not buffered (which
    // added the layer's size and more to the resident set, a figure too noisy on a loaded machine to judge).
    expect(watch).toMatchObject({ onDisk: true });
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'catalog serve stopped by %s while a blob is being pulled ends by the signal and leaves no temp dir',
    async (signal) => {
      const tmp = tempDir(`serve-${signal}`);
      const blobStalled = new Promise<void>((resolve) => stalled.push(resolve));
      const child: ChildProcess = spawn(
        process.execPath,
        [opkit, 'catalog', 'serve', '--plain-http', `${registryHost}/stall/catalog:v1`, '--port', '0'],
        { env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      for (const stream of [child.stdout, child.stderr]) stream?.on('data', (d: Buffer) => (output += d));
      const exited = once(child, 'exit');
      await blobStalled;
      // The first MiB of the layer is on its way to a temp file: the pull is under way.
      expect(readdirSync(tmp)).not.toEqual([]);
      const sent = performance.now();
      child.kill(signal);
      const [code, signalCode] = await exited;
      expect({ code, signalCode }, output).toEqual({ code: null, signalCode: signal });
      expect(readdirSync(tmp)).toEqual([]);
      expect(performance.now() - sent).toBeLessThan(5000);
      expect(output).toContain(`${signal}: shutting down`);
    },
  );
});
