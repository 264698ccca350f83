import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryClient, writeLayout } from '@opkit/oci';
import { type ImageRegistry, startImageRegistry } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleImageOf, catalogImageOf, ESCAPING_LAYERS, type RawEntry } from './support/hostile-images.js';
import { outputCases } from './support/output-cases.js';

const opkit = join(import.meta.dirname, '..', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-hostile-'));
const timeV = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Outcome {
  readonly code: number;
  readonly stderr: string;
  readonly stdout: string;
  readonly seconds: number;
  /** Maximum resident set size of the CLI process in MiB, when `time -v` is there to tell. */
  readonly rssMiB?: number;
}

/**
 * Runs the built CLI with `tmp` as its temporary directory and `extraEnv` added to its environment, measured
 * by `time -v` when present; never rejects.
 */
function cli(
  args: readonly string[],
  tmp: string,
  cwd = scratch,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<Outcome> {
  const [file, argv] = timeV
    ? [timeV, ['-v', process.execPath, opkit, ...args]]
    : [process.execPath, [opkit, ...args]];
  const started = performance.now();
  return new Promise((resolve) => {
    const env = { ...process.env, TMPDIR: tmp, ...extraEnv };
    execFile(file, argv, { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const seconds = (performance.now() - started) / 1000;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      // `time -v` appends its report after the child's own stderr.
      const own = timeV ? stderr.slice(0, stderr.search(/\t?Command (being timed|exited)/)) : stderr;
      resolve({
        code: error ? Number((error as { code?: number }).code ?? 1) : 0,
        stdout,
        stderr: own.replace(/Command exited with non-zero status \d+\n?$/, ''),
        seconds,
        ...(rss ? { rssMiB: Math.round(Number(rss[1]) / 1024) } : {}),
      });
    });
  });
}

const put = (rel: string, content: string): string => {
  const path = join(scratch, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
};

// A "billion laughs" catalog: nine levels of anchors, each aliasing the one before ten times (10^9 strings
// once expanded), as the catalog corpus's `yaml-alias-bomb` case.
const aliasLevels = 'abcdefghi';
const aliasBomb = [
  'schema: olm.package',
  'name: foo',
  'laughs:',
  ...[...aliasLevels].map((level, i) => {
    const items = Array<string>(10).fill(i === 0 ? '"lol"' : `*${aliasLevels[i - 1]}`);
    return `  ${level}: &${level} [${items.join(', ')}]`;
  }),
  '',
].join('\n');
const deepYaml = `schema: olm.package\nname: p\nx: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`;
const deepJson = `{"schema":"olm.package","name":"p","x":${'['.repeat(200_000)}1${']'.repeat(200_000)}}\n`;
const annotations =
  'annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n' +
  '  operators.operatorframework.io.bundle.manifests.v1: manifests/\n' +
  '  operators.operatorframework.io.bundle.metadata.v1: metadata/\n' +
  '  operators.operatorframework.io.bundle.package.v1: demo\n' +
  '  operators.operatorframework.io.bundle.channels.v1: alpha\n';

const CSV_HEAD =
  'apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: demo.v0.1.0\n';

/** A catalog directory holding one hostile file. */
const catalogWith = (name: string, file: string, content: string) => {
  put(join(name, file), content);
  return name;
};
/** A bundle directory whose CSV is the hostile text. */
const bundleWith = (name: string, content: string) => {
  put(join(name, 'metadata', 'annotations.yaml'), annotations);
  put(join(name, 'manifests', 'demo.clusterserviceversion.yaml'), content);
  return name;
};

interface Case {
  readonly name: string;
  /** Arguments; `OUT` stands for an output location that must not appear. */
  readonly args: () => Promise<string[]> | string[];
  /** What the one-line message must say (the file, field or source, and the reason). */
  readonly message: RegExp;
  /** Where the one line goes (stderr unless the command's output format says otherwise). */
  readonly stream?: 'stdout';
  /** Added to the CLI's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** The working directory, relative to the scratch directory (default: the scratch directory). */
  readonly cwd?: string;
  /** Files (relative to the scratch directory) that must hold this content afterwards, filled by `args`. */
  readonly kept?: ReadonlyMap<string, string>;
}

const escaping = Object.entries(ESCAPING_LAYERS);
let registry: Server;
let registryHost = '';
/** A real registry on loopback, serving the escaping images as any registry would. */
let realRegistry: ImageRegistry | undefined;
const escapingImage = (what: 'catalog' | 'bundle', slug: string) =>
  `${realRegistry?.host ?? ''}/escape-${what}-${slug}:v1`;
const withMetadata = (entries: readonly RawEntry[]): RawEntry[] => [
  ...entries,
  { path: 'metadata/annotations.yaml', type: 'file', content: annotations },
];

const PROXY_WITH_PASSWORD = 'https://alice:s3cret@proxy.test:3128';
/** The `Authorization` of every request the token realm named by the hostile storage host received. */
const realmAuthorizations: Array<string | undefined> = [];

const cases: Case[] = [
  ...(
    [
      ['alias bomb', 'catalog.yaml', aliasBomb, 'yaml: document contains excessive aliasing'],
      ['deep YAML', 'catalog.yaml', deepYaml, 'yaml: line 3: exceeded max depth of 500'],
      ['deep JSON', 'catalog.json', deepJson, "invalid character '[' exceeded max depth"],
    ] as const
  ).flatMap(([kind, file, content, reason]): Case[] => {
    const dir = `catalog-${kind.replace(' ', '-')}`.toLowerCase();
    const escaped = reason.replaceAll(/[[\]().]/g, '\\$&');
    // `catalog validate` prints opm validate's report, which gives the reason alone; the others name the file.
    const named = new RegExp(`^opkit: ${file.replace('.', '\\.')}: .*${escaped}$`);
    return [
      {
        name: `${kind}: catalog validate`,
        args: () => ['catalog', 'validate', catalogWith(dir, file, content)],
        message: new RegExp(escaped),
      },
      {
        name: `${kind}: catalog render`,
        args: () => ['catalog', 'render', catalogWith(dir, file, content)],
        message: named,
      },
      {
        name: `${kind}: catalog migrate`,
        args: () => ['catalog', 'migrate', catalogWith(dir, file, content), 'OUT'],
        message: named,
      },
      {
        name: `${kind}: graph`,
        args: () => ['graph', catalogWith(dir, file, content), '--package', 'p'],
        message: named,
      },
    ];
  }),
  // `catalog build` reads each template once, with the catalog decoder's limits.
  {
    name: 'alias bomb: catalog build',
    args: () => {
      mkdirSync(join(scratch, 'no-bundles'), { recursive: true });
      const template = `schema: olm.semver\n${aliasBomb.split('\n').slice(2).join('\n')}`;
      return [
        'catalog',
        'build',
        '--template',
        put('template-alias-bomb.yaml', template),
        '--bundles',
        'no-bundles',
        '--out',
        'OUT',
      ];
    },
    message:
      /^opkit: \S*template-alias-bomb\.yaml: decoding template input: .*yaml: document contains excessive aliasing$/,
  },
  // A sparse file past the catalog reader's 512 MiB limit: refused by its size, never read.
  ...(['catalog validate', 'catalog render', 'catalog migrate', 'graph'] as const).map(
    (command): Case => ({
      name: `huge file: ${command}`,
      args: () => {
        const file = put(join('catalog-huge', 'catalog.json'), '');
        truncateSync(file, 513 * 1024 * 1024);
        const dir = join(scratch, 'catalog-huge');
        return [
          ...command.split(' '),
          dir,
          ...(command === 'catalog migrate' ? ['OUT'] : command === 'graph' ? ['--package', 'p'] : []),
        ];
      },
      message: /catalog\.json.*exceeds the limit of 536870912 bytes/,
    }),
  ),
  // Files that are no files: a FIFO would block the reader, a link to /dev/zero would never end. Both are
  // refused by name before they are opened.
  ...(
    [
      [
        'FIFO',
        'fifo.yaml',
        (path: string) => execFileSync('mkfifo', [path]),
        'not a regular file but a FIFO',
      ],
      [
        'link to /dev/zero',
        'zero.json',
        (path: string) => symlinkSync('/dev/zero', path),
        'a symlink on its path leads out of the directory',
      ],
    ] as const
  ).flatMap(([kind, file, make, reason]) =>
    (['catalog render', 'catalog migrate'] as const).map(
      (command): Case => ({
        name: `${kind}: ${command}`,
        args: () => {
          const dir = join(scratch, `catalog-${file.replace('.', '-')}`);
          if (!existsSync(dir)) {
            mkdirSync(dir);
            make(join(dir, file));
          }
          return [...command.split(' '), dir, ...(command === 'catalog migrate' ? ['OUT'] : [])];
        },
        message: new RegExp(`^opkit: open ${file.replace('.', '\\.')}: ${reason}$`),
      }),
    ),
  ),
  // `bundle validate` reports as operator-sdk does, on stdout; a manifest refused by a reader limit is named,
  // with the limit, where operator-sdk would pass over it and report no CSV at all.
  ...(
    [
      ['alias bomb', aliasBomb.split('\n').slice(2).join('\n'), 'yaml: document contains excessive aliasing'],
      ['deep YAML', deepYaml.split('\n').slice(2).join('\n'), 'yaml: line 5: exceeded max depth of 500'],
    ] as const
  ).map(
    ([kind, body, reason]): Case => ({
      name: `${kind}: bundle validate`,
      args: () => [
        'bundle',
        'validate',
        bundleWith(`bundle-${kind.replace(' ', '-')}`, `${CSV_HEAD}${body}`),
      ],
      message: new RegExp(
        `^ERRO\\[0000\\] bundle-[\\w-]+/manifests/demo\\.clusterserviceversion\\.yaml: ${reason}$`,
      ),
      stream: 'stdout',
    }),
  ),
  // Sparse files past the bundle reader's 64 MiB limit: refused by their size, never read.
  {
    name: 'huge manifest: bundle validate',
    args: () => {
      const dir = bundleWith('bundle-huge-manifest', '');
      truncateSync(join(scratch, dir, 'manifests', 'demo.clusterserviceversion.yaml'), 65 * 1024 * 1024);
      return ['bundle', 'validate', dir];
    },
    message:
      /^ERRO\[0000\] read bundle-huge-manifest\/manifests\/demo\.clusterserviceversion\.yaml: file of 68157440 bytes exceeds the limit of 67108864 bytes$/,
    stream: 'stdout',
  },
  // `bundle image` reads the bundle with the same limits before writing anything.
  ...(
    [
      [
        'alias bomb',
        `${CSV_HEAD}${aliasBomb.split('\n').slice(2).join('\n')}`,
        'document contains excessive aliasing',
      ],
      ['huge manifest', undefined, 'file of 68157440 bytes exceeds the limit of 67108864 bytes'],
    ] as const
  ).map(
    ([kind, body, reason]): Case => ({
      name: `${kind}: bundle image`,
      args: () => {
        const dir = bundleWith(`bundle-image-${kind.replace(' ', '-')}`, body ?? '');
        if (body === undefined)
          truncateSync(join(scratch, dir, 'manifests', 'demo.clusterserviceversion.yaml'), 65 * 1024 * 1024);
        return ['bundle', 'image', dir, '--layout', 'OUT'];
      },
      message: new RegExp(
        `^opkit: malformed bundle .*bundle-image-[\\w-]+: manifests/demo\\.clusterserviceversion\\.yaml: .*${reason}$`,
      ),
    }),
  ),
  {
    name: 'huge metadata: bundle validate',
    args: () => {
      const dir = bundleWith('bundle-huge-metadata', CSV_HEAD);
      truncateSync(join(scratch, dir, 'metadata', 'annotations.yaml'), 65 * 1024 * 1024);
      return ['bundle', 'validate', dir];
    },
    message: /^opkit: read bundle-huge-metadata\/metadata\/annotations\.yaml: file of 68157440 bytes exceeds/,
  },
  ...escaping.flatMap(([kind, entries]): Case[] => {
    const slug = kind.replaceAll(/\W+/g, '-');
    const catalogLayout = async () => {
      const dir = join(scratch, `catalog-layout-${slug}`);
      if (!existsSync(dir)) await writeLayout(dir, [{ image: catalogImageOf(entries), tag: 'v1' }]);
      return dir;
    };
    const bundleLayout = async () => {
      const dir = join(scratch, `bundle-layout-${slug}`);
      if (!existsSync(dir))
        await writeLayout(dir, [{ image: bundleImageOf(withMetadata(entries)), tag: 'v1' }]);
      return dir;
    };
    const outOfImage = /leaves the image root|points out of the image/;
    // Through a registry the image is named, and so is the entry that tries to leave.
    const refused = entries.find((e) => e.refused) ?? entries.at(-1);
    const escaper = JSON.stringify(refused?.path).replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const namedOut = (what: string) =>
      new RegExp(`escape-${what}-${slug}:v1.*${escaper} (leaves the image root|points out of the image)`);
    return [
      {
        name: `tar with ${kind}: catalog render <catalog image in a registry>`,
        args: () => ['catalog', 'render', '--plain-http', escapingImage('catalog', slug)],
        message: namedOut('catalog'),
      },
      {
        name: `tar with ${kind}: catalog migrate <catalog image in a registry>`,
        args: () => ['catalog', 'migrate', '--plain-http', escapingImage('catalog', slug), 'OUT'],
        message: namedOut('catalog'),
      },
      {
        name: `tar with ${kind}: catalog render <bundle image in a registry>`,
        args: () => ['catalog', 'render', '--plain-http', escapingImage('bundle', slug)],
        message: namedOut('bundle'),
      },
      {
        name: `tar with ${kind}: catalog render <catalog layout>`,
        args: async () => ['catalog', 'render', await catalogLayout()],
        message: outOfImage,
      },
      {
        name: `tar with ${kind}: catalog migrate <catalog layout>`,
        args: async () => ['catalog', 'migrate', await catalogLayout(), 'OUT'],
        message: outOfImage,
      },
      {
        name: `tar with ${kind}: catalog serve <catalog layout>`,
        args: async () => ['catalog', 'serve', await catalogLayout(), '--port', '0', '--host', '127.0.0.1'],
        message: outOfImage,
      },
      {
        name: `tar with ${kind}: catalog render <bundle layout>`,
        args: async () => ['catalog', 'render', await bundleLayout()],
        message: outOfImage,
      },
    ];
  }),
  // Each lie is named for what it is, never taken for an unreachable registry.
  ...(
    [
      ['manifest digest', /^opkit: digest mismatch for .*manifest: expected sha256:\w+, got sha256:\w+$/],
      ['blob digest', /^opkit: digest mismatch for .*blob: expected sha256:\w+, got sha256:\w+$/],
      [
        'blob length',
        /^opkit: registry [\d.:]+ sent 12 bytes for blob sha256:\w+, Content-Length said \d+, after 4 attempts/,
      ],
      ['blob size', /^opkit: registry [\d.:]+ sent more than the \d+ bytes expected for blob sha256:\w+/],
    ] as const
  ).map(
    ([lie, message]): Case => ({
      name: `registry lying about the ${lie}: catalog render <image>`,
      args: () => ['catalog', 'render', '--plain-http', `${registryHost}/lie/${lie.replace(' ', '-')}:v1`],
      message,
    }),
  ),
  // Secrets stay out of messages: a proxy's password is never printed.
  {
    name: 'proxy URL with a password: catalog render <image>',
    args: () => ['catalog', 'render', '--plain-http', `${registryHost}/lie/none:v1`],
    env: { HTTP_PROXY: PROXY_WITH_PASSWORD, HTTPS_PROXY: PROXY_WITH_PASSWORD },
    message: /^opkit: HTTP_PROXY="https:\/\/\*\*\*@proxy\.test:3128": only http:\/\/ proxies are supported$/,
  },
  // Credentials stay with the registry: a storage host's challenge is no reason to send them anywhere.
  {
    name: 'registry redirecting a blob to a host whose 401 names a token realm: catalog render <image>, logged in',
    args: () => {
      const auth = Buffer.from('alice:s3cret').toString('base64');
      put('docker-login/config.json', JSON.stringify({ auths: { [registryHost]: { auth } } }));
      return ['catalog', 'render', '--plain-http', `${registryHost}/lie/redirect:v1`];
    },
    env: {
      DOCKER_CONFIG: join(scratch, 'docker-login'),
      REGISTRY_AUTH_FILE: join(scratch, 'no-podman-auth.json'),
    },
    message:
      /^opkit: authentication to [\d.:]+ failed for [\d.:]+\/lie\/redirect:v1: blob sha256:\w+: [\d.:]+ \(where the registry sent the request\) answered 401; the registry's credentials are not sent there$/,
  },
  // An output named where the user's files are: the current directory, an input, a directory holding one.
  ...outputCases(scratch),
];

const figures: string[] = [];

beforeAll(async () => {
  registry = await lyingRegistry();
  registryHost = `127.0.0.1:${(registry.address() as AddressInfo).port}`;
  realRegistry = await startImageRegistry(join(scratch, 'registry'));
  const client = new RegistryClient({ plainHttp: true });
  for (const [kind, entries] of escaping) {
    const slug = kind.replaceAll(/\W+/g, '-');
    await client.push(catalogImageOf(entries), escapingImage('catalog', slug));
    await client.push(bundleImageOf(withMetadata(entries)), escapingImage('bundle', slug));
  }
});

afterAll(async () => {
  registry?.close();
  await realRegistry?.stop();
  rmSync(scratch, { recursive: true, force: true });
  console.log(`hostile input, per case (wall s, max RSS MiB, message):\n${figures.join('\n')}`);
});

describe('hostile input to every reader of the CLI', () => {
  it.each(cases)(
    '$name: exit 1, one line without a stack, nothing written',
    async ({ name, args, message, stream, cwd, kept, env }) => {
      const out = join(scratch, `out-${figures.length}`);
      const argv = (await args()).map((a) => (a === 'OUT' ? out : a));
      const tmp = join(scratch, `tmp-${figures.length}`);
      mkdirSync(tmp);
      const result = await cli(argv, tmp, join(scratch, cwd ?? ''), env);
      const said = stream === 'stdout' ? result.stdout : result.stderr;
      figures.push(`${name}\t${result.seconds.toFixed(2)}\t${result.rssMiB ?? '?'}\t${said.trimEnd()}`);
      expect(result.code, said).toBe(1);
      const lines = said.trimEnd().split('\n');
      expect(lines, said).toHaveLength(1);
      expect(said).not.toMatch(/\n\s+at /);
      expect(lines[0]).toMatch(message);
      expect(existsSync(out)).toBe(false);
      for (const [file, content] of kept ?? [])
        expect(readFileSync(join(scratch, file), 'utf8'), file).toBe(content);
      // Whatever was unpacked or staged is gone, however the command failed.
      expect(readdirSync(tmp)).toEqual([]);
      // Generous bounds: a refusal comes from a limit, not from exhausting the machine.
      expect(result.seconds).toBeLessThan(30);
      if (result.rssMiB !== undefined) expect(result.rssMiB).toBeLessThan(1024);
    },
  );

  it('sent no credential to the token realm a redirected download named', () => {
    expect(realmAuthorizations).toEqual([]);
  });
});

/**
 * A registry on loopback that serves one honest catalog image except for one lie per repository: a manifest
 * whose bytes do not match the digest it is fetched by, a blob whose bytes do not match its digest, or a blob
 * whose Content-Length promises more than is sent, or a blob far larger than its descriptor's size.
 */
async function lyingRegistry(): Promise<Server> {
  const image = catalogImageOf(ESCAPING_LAYERS['a ../ path']!.slice(0, 1));
  const blobs = new Map<string, Uint8Array>([
    [image.manifest.config.digest, image.configBytes],
    ...image.layers.map((l) => [l.descriptor.digest, l.bytes] as const),
  ]);
  // Where the `redirect` repository sends blob downloads: a storage host whose 401 names a token realm that
  // records whatever credentials reach it.
  const realm = createServer((req, res) => {
    realmAuthorizations.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"stolen"}');
  });
  const storage = createServer((_req, res) => {
    const { port } = realm.address() as AddressInfo;
    res.writeHead(401, { 'www-authenticate': `Bearer realm="http://127.0.0.1:${port}/token"` }).end();
  });
  await Promise.all(
    [realm, storage].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))),
  );
  const storageOrigin = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    const m = /^\/v2\/lie\/([\w-]+)\/(manifests|blobs)\/(.+)$/.exec(url);
    if (url === '/v2/' || url === '/v2') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const [, lie, kind, ref] = m as unknown as [string, string, string, string];
    if (kind === 'manifests') {
      const body =
        lie === 'manifest-digest'
          ? Buffer.concat([image.manifestBytes, Buffer.from(' ')])
          : image.manifestBytes;
      res.writeHead(200, {
        'content-type': image.mediaType,
        'docker-content-digest': image.digest,
        'content-length': String(body.byteLength),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    const blob = blobs.get(ref);
    if (blob === undefined) {
      res.writeHead(404).end();
      return;
    }
    if (lie === 'redirect') {
      res.writeHead(307, { location: `${storageOrigin}/storage/${ref}` }).end();
      return;
    }
    if (lie === 'blob-digest' && ref !== image.manifest.config.digest) {
      const wrong = Buffer.from(blob);
      wrong[wrong.length - 1] ^= 0xff;
      res.writeHead(200, { 'content-length': String(wrong.byteLength) }).end(wrong);
      return;
    }
    if (lie === 'blob-size' && ref !== image.manifest.config.digest) {
      // Honest about its own length, but 64 MiB more than the manifest's descriptor says.
      const oversized = Buffer.concat([blob, Buffer.alloc(64 << 20)]);
      res.writeHead(200, { 'content-length': String(oversized.byteLength) }).end(oversized);
      return;
    }
    if (lie === 'blob-length' && ref !== image.manifest.config.digest) {
      res.writeHead(200, { 'content-length': String(blob.byteLength) });
      // Hang up once 12 bytes are out: the body is shorter than promised.
      res.write(blob.subarray(0, 12), () => res.destroy());
      return;
    }
    res.writeHead(200, { 'content-length': String(blob.byteLength) }).end(blob);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.on('close', () => {
    for (const s of [realm, storage]) {
      s.closeAllConnections();
      s.close();
    }
  });
  return server;
}
