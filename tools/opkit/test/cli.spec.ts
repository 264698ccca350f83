import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { formatOlmBundleJson, renderBundle } from '@opkit/olm';
import { opmBinary, releasedData, workspaceRoot } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = workspaceRoot;
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-cli-'));
let opm: string;

/** Runs opkit in the repository root; resolves with its exit code and output (never rejects). */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], {
      cwd: root,
      maxBuffer: 32 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const bundleDirs = () =>
  readdirSync(releasedData.bundles)
    .filter((p) => !p.includes('.'))
    .flatMap((p) => readdirSync(join(releasedData.bundles, p)).map((v) => join('bundles', p, v)));

beforeAll(async () => {
  opm = await opmBinary();
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the released bundles and the catalog', () => {
  it('every bundle validates, and opm renders each exactly as we do', async () => {
    expect(bundleDirs()).toHaveLength(5);
    for (const dir of bundleDirs()) {
      const result = await cli('bundle', 'validate', dir);
      expect(result, dir).toMatchObject({ code: 0 });
      expect(result.stdout).toContain('All validation tests have completed successfully');
      const { stdout } = await run(opm, ['render', join(root, dir), '-o', 'json'], { maxBuffer: 32 << 20 });
      expect(formatOlmBundleJson(renderBundle(join(root, dir)))).toBe(stdout);
    }
  });

  it('the committed catalog is what the templates give, and opm validate accepts it', async () => {
    const out = join(scratch, 'configs');
    const built = await cli(
      'catalog',
      'build',
      '--template',
      'catalog/templates/memcached-operator.yaml',
      'catalog/templates/redis-operator.yaml',
      '--out',
      out,
    );
    expect(built).toMatchObject({ code: 0 });
    for (const pkg of ['memcached-operator', 'redis-operator']) {
      for (const file of readdirSync(join(out, pkg))) {
        expect(
          readFileSync(join(out, pkg, file), 'utf8'),
          `${pkg}/${file} is stale: run nx run catalog:build`,
        ).toBe(readFileSync(join(releasedData.catalogConfigs, pkg, file), 'utf8'));
      }
    }
    await run(opm, ['validate', releasedData.catalogConfigs]);
    expect(await cli('catalog', 'validate', 'catalog/configs')).toMatchObject({ code: 0 });
    const next = await cli(
      'graph',
      'catalog/configs',
      '--package',
      'memcached-operator',
      '--installed',
      '0.1.0',
    );
    expect(next.stdout).toContain('0.1.0 → 0.2.0 (replaces)');
    const mermaid = await cli(
      'graph',
      'catalog/configs',
      '--package',
      'redis-operator',
      '--format',
      'mermaid',
    );
    const { stdout: opmGraph } = await run(opm, [
      'alpha',
      'render-graph',
      '-p',
      'redis-operator',
      releasedData.catalogConfigs,
    ]);
    expect(mermaid.stdout).toBe(opmGraph.endsWith('\n') ? opmGraph : `${opmGraph}\n`);
  });

  it("catalog build of one template rewrites that package's directory alone, byte for byte", async () => {
    const configs = join(scratch, 'one-template', 'configs');
    cpSync(releasedData.catalogConfigs, configs, { recursive: true });
    writeFileSync(join(configs, 'memcached-operator', 'catalog.json'), '{}\n');
    const built = await cli(
      'catalog',
      'build',
      '--template',
      'catalog/templates/memcached-operator.yaml',
      '--out',
      configs,
    );
    expect(built).toMatchObject({ code: 0 });
    expect(readdirSync(configs).sort()).toEqual(['memcached-operator', 'redis-operator']);
    for (const pkg of ['memcached-operator', 'redis-operator']) {
      expect(readFileSync(join(configs, pkg, 'catalog.json'), 'utf8'), pkg).toBe(
        readFileSync(join(releasedData.catalogConfigs, pkg, 'catalog.json'), 'utf8'),
      );
    }
    expect(readdirSync(join(scratch, 'one-template'))).toEqual(['configs']);
  });

  it('opkit catalog render prints catalogs and bundle directories exactly as opm render does', async () => {
    const sources = ['catalog/configs', 'bundles/memcached-operator/0.2.0'];
    for (const format of ['json', 'yaml']) {
      const ours = await cli('catalog', 'render', ...sources, '-o', format);
      expect(ours, format).toMatchObject({ code: 0, stderr: '' });
      const { stdout } = await run(opm, ['render', ...sources.map((s) => join(root, s)), '-o', format], {
        maxBuffer: 32 << 20,
      });
      expect(ours.stdout, format).toBe(stdout);
    }
    const missing = await cli('catalog', 'render', 'catalog/nowhere');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('catalog/nowhere');
  });
});

describe('images without Docker', () => {
  let registry: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dir = join(scratch, 'registry');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.yml'),
      `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`,
    );
    registry = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if ((await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => undefined))?.ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the registry did not start');
  });

  afterAll(() => registry?.kill('SIGKILL'));

  it('builds reproducible bundle images that skopeo reads, pushes them and pulls back the bundle', async () => {
    const dir = 'bundles/memcached-operator/0.2.0';
    const first = await cli('bundle', 'image', dir, '--layout', join(scratch, 'a'), '--tag', '0.2.0');
    const second = await cli('bundle', 'image', dir, '--layout', join(scratch, 'b'), '--tag', '0.2.0');
    expect(first.code).toBe(0);
    expect(first.stdout.split(' ')[0]).toBe(second.stdout.split(' ')[0]);
    const { stdout } = await run('skopeo', ['inspect', `oci:${join(scratch, 'a')}:0.2.0`]);
    expect(JSON.parse(stdout).Labels).toMatchObject({
      'operators.operatorframework.io.bundle.package.v1': 'memcached-operator',
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
    });
    const ref = `127.0.0.1:${port}/opkit/memcached-operator-bundle:0.2.0`;
    const pushed = await cli('image', 'push', join(scratch, 'a'), ref, '--tag', '0.2.0', '--plain-http');
    expect(pushed).toMatchObject({ code: 0 });
    const remote = JSON.parse(
      (await run('skopeo', ['inspect', '--tls-verify=false', `docker://${ref}`])).stdout,
    );
    expect(remote.Labels['operators.operatorframework.io.bundle.channels.v1']).toBe('alpha');
    await run('skopeo', [
      'copy',
      '--src-tls-verify=false',
      `docker://${ref}`,
      `oci:${join(scratch, 'pulled')}:x`,
    ]);
    await run('umoci', [
      'unpack',
      '--rootless',
      '--image',
      `${join(scratch, 'pulled')}:x`,
      join(scratch, 'unpacked'),
    ]);
    for (const sub of ['manifests', 'metadata']) {
      for (const file of readdirSync(join(root, dir, sub))) {
        expect(readFileSync(join(scratch, 'unpacked', 'rootfs', sub, file), 'utf8')).toBe(
          readFileSync(join(root, dir, sub, file), 'utf8'),
        );
      }
    }
  });

  it('builds the catalog image with its /configs label', async () => {
    const built = await cli('catalog', 'image', 'catalog/configs', '--layout', join(scratch, 'catalog'));
    expect(built.code).toBe(0);
    const { stdout } = await run('skopeo', ['inspect', `oci:${join(scratch, 'catalog')}:latest`]);
    expect(JSON.parse(stdout).Labels['operators.operatorframework.io.index.configs.v1']).toBe('/configs');
  });

  it('says which registry it could not reach, and exits non-zero', async () => {
    const result = await cli(
      'image',
      'push',
      join(scratch, 'a'),
      '127.0.0.1:9/x/y:1',
      '--tag',
      '0.2.0',
      '--plain-http',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^opkit: .*127\.0\.0\.1:9.*\n$/);
  });
});

describe('bad input', () => {
  it('a malformed bundle is refused with the file and reason, and no image is written', async () => {
    const dir = join(scratch, 'broken-bundle');
    cpSync(releasedData.bundle('memcached-operator', '0.2.0'), dir, { recursive: true });
    writeFileSync(join(dir, 'manifests', 'cache.example.com_memcacheds.yaml'), 'kind: [unclosed\n');
    const result = await cli('bundle', 'image', dir, '--layout', join(scratch, 'never'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cache.example.com_memcacheds.yaml');
    expect(existsSync(join(scratch, 'never'))).toBe(false);
  });

  it('a bundle whose package name would leave dist/images gets no default layout', async () => {
    const work = join(scratch, 'escape', 'a', 'b');
    const dir = join(work, 'bundle');
    cpSync(releasedData.bundle('memcached-operator', '0.2.0'), dir, { recursive: true });
    const annotations = join(dir, 'metadata', 'annotations.yaml');
    writeFileSync(
      annotations,
      readFileSync(annotations, 'utf8').replace(/(bundle\.package\.v1: ).*/, '$1../../../../outside'),
    );
    const result = await run(process.execPath, [opkit, 'bundle', 'image', 'bundle'], { cwd: work }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('operators.operatorframework.io.bundle.package.v1 "../../../../outside"');
    expect(existsSync(join(scratch, 'escape', 'outside-bundle'))).toBe(false);
  });

  it('a CSV without required fields fails validation with operator-sdk’s message', async () => {
    const dir = join(scratch, 'no-install');
    cpSync(releasedData.bundle('memcached-operator', '0.2.0'), dir, { recursive: true });
    const csvFile = join(dir, 'manifests', 'memcached-operator.clusterserviceversion.yaml');
    writeFileSync(
      csvFile,
      readFileSync(csvFile, 'utf8').replace(/^ {2}displayName: Memcached Operator\n/m, ''),
    );
    const result = await cli('bundle', 'validate', dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ERRO.*Field Spec.DisplayName.*required field missing/);
  });

  it('a template naming an unknown bundle fails, naming the template and entry, and writes nothing', async () => {
    const template = join(scratch, 'bad-template.yaml');
    writeFileSync(
      template,
      readFileSync(join(releasedData.catalogTemplates, 'memcached-operator.yaml'), 'utf8').replace(
        'bundles/memcached-operator/0.2.0',
        'bundles/memcached-operator/9.9.9',
      ),
    );
    const out = join(scratch, 'never-catalog');
    const result = await cli('catalog', 'build', '--template', template, '--out', out);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad-template.yaml');
    expect(result.stderr).toContain('bundles/memcached-operator/9.9.9');
    expect(existsSync(out)).toBe(false);
  });

  it("a template that disagrees with an operator's release identity fails, naming both, and writes nothing", async () => {
    const template = join(scratch, 'memcached-operator.yaml');
    writeFileSync(
      template,
      readFileSync(join(releasedData.catalogTemplates, 'memcached-operator.yaml'), 'utf8').replace(
        'replaces: memcached-operator.v0.2.0',
        'replaces: memcached-operator.v0.1.0',
      ),
    );
    const agreeing = ['catalog/templates/redis-operator.yaml'];
    const out = join(scratch, 'release-checked-catalog');
    const result = await cli(
      'catalog',
      'build',
      '--template',
      template,
      ...agreeing,
      '--operators',
      'operators',
      '--out',
      out,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${template}: channel alpha: memcached-operator.v0.3.0 replaces memcached-operator.v0.1.0, but operators/memcached/package.json opkit.replaces is 0.2.0`,
    );
    expect(result.stderr).not.toContain('redis-operator');
    expect(existsSync(out)).toBe(false);
    const committed = await cli(
      'catalog',
      'build',
      '--template',
      'catalog/templates/memcached-operator.yaml',
      ...agreeing,
      '--operators',
      'operators',
      '--out',
      out,
    );
    expect(committed).toMatchObject({ code: 0 });
  });

  it("prints opkit's own warnings without failing the catalog", async () => {
    const dir = join(scratch, 'with-warning');
    cpSync(releasedData.catalogConfigs, dir, { recursive: true });
    writeFileSync(
      join(dir, 'extra.json'),
      JSON.stringify({ schema: 'olm.bundel', package: 'memcached-operator' }),
    );
    const result = await cli('catalog', 'validate', dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'warning: blob with unknown schema "olm.bundel" is kept but not used by OLM',
    );
  });

  it('a catalog with two channel heads is refused as opm refuses it', async () => {
    const dir = join(scratch, 'two-heads');
    cpSync(releasedData.catalogConfigs, dir, { recursive: true });
    const file = join(dir, 'memcached-operator', readdirSync(join(dir, 'memcached-operator'))[0]!);
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(/,\s*"replaces": "memcached-operator.v0.1.0"/, ''),
    );
    const ours = await cli('catalog', 'validate', dir);
    expect(ours.code).toBe(1);
    const theirs = await run(opm, ['validate', dir]).catch((e: { stderr: string }) => e);
    expect(ours.stderr).toContain('multiple channel heads');
    expect((theirs as { stderr: string }).stderr).toContain('multiple channel heads');
  });

  it('flags it cannot honour are refused with exit code 1, and nothing is written', async () => {
    for (const args of [
      ['catalog', 'validate', 'catalog/configs', '--output', 'xml'],
      ['catalog', 'render', 'catalog/configs', '-o', 'xml'],
      ['bundle', 'validate', 'bundles/memcached-operator/0.2.0', '--output', 'xml'],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^error: .* argument 'xml' is invalid\. Allowed choices are [\w, -]+\.\n$/,
      );
    }
    const generate = (out: string, ...flags: string[]) =>
      cli('bundle', 'generate', '--operator', 'operators/memcached', '--out', out, ...flags);
    const notVersion = await generate(
      join(scratch, 'g1'),
      '--package',
      'memcached-operator',
      '--version',
      '0.3.0',
      '--replaces',
      'latest',
    );
    expect(notVersion).toMatchObject({ code: 1, stdout: '' });
    expect(notVersion.stderr).toBe(
      'opkit: --replaces "latest": not a semantic version (e.g. 0.2.0, without a leading v) nor a CSV name memcached-operator.v<version>\n',
    );
    for (const [flags, message] of [
      [
        ['--replaces', 'redis-operator.v0.1.0'],
        'opkit: --replaces "redis-operator.v0.1.0": a CSV name of another package (this bundle is of memcached-operator)\n',
      ],
      [
        ['--channels', 'alpha,stable', '--default-channel', 'beta'],
        'opkit: --default-channel "beta": not one of --channels alpha,stable\n',
      ],
      [
        ['--package', 'Memcached_Operator'],
        "opkit: --package \"Memcached_Operator\": lower-case letters, digits, '-' and '.' only (it names the CSV <package>.v<version>)\n",
      ],
      [
        ['--channels', 'alpha,,stable'],
        "error: option '--channels <list>' argument 'alpha,,stable' is invalid. must be a comma-separated list without empty entries.\n",
      ],
    ] as const) {
      const refused = await generate(
        join(scratch, 'g3'),
        '--package',
        'memcached-operator',
        '--version',
        '0.3.0',
        ...flags,
      );
      expect(refused, flags.join(' ')).toMatchObject({ code: 1, stdout: '', stderr: message });
    }
    // operator-sdk's form of --replaces, the CSV name, is taken as well.
    const csvName = await generate(
      join(scratch, 'g4'),
      '--package',
      'memcached-operator',
      '--version',
      '0.3.0',
      '--replaces',
      'memcached-operator.v0.2.0',
    );
    expect(csvName, csvName.stderr).toMatchObject({ code: 0 });
    expect(
      readFileSync(join(scratch, 'g4', 'manifests', 'memcached-operator.clusterserviceversion.yaml'), 'utf8'),
    ).toContain('replaces: memcached-operator.v0.2.0');
    // The base CSV is written for memcached-operator: another package would silently lose it.
    const otherPackage = await generate(
      join(scratch, 'g2'),
      '--package',
      'cache-operator',
      '--version',
      '0.3.0',
    );
    expect(otherPackage).toMatchObject({ code: 1, stdout: '' });
    expect(otherPackage.stderr).toContain(
      'the base CSV memcached-operator.v0.0.0 is not of package cache-operator',
    );
    expect(existsSync(join(scratch, 'g1'))).toBe(false);
    expect(existsSync(join(scratch, 'g2'))).toBe(false);
    expect(existsSync(join(scratch, 'g3'))).toBe(false);
    for (const [args, message] of [
      [
        ['graph', 'catalog/configs', '--package', 'memcached-operator', '--channel', 'alpha'],
        'opkit: --channel picks the subscription’s channel for --installed: give --installed too\n',
      ],
      [
        ['graph', 'catalog/configs', '--package', 'memcached-operator', '--installed', '0.1.0', '-o', 'dot'],
        'opkit: --installed explains in text: -o dot draws the graph, without --installed\n',
      ],
      [
        ['catalog', 'image', 'catalog/configs', '--layout', join(scratch, 'l1'), '--inline-bundles'],
        'opkit: --inline-bundles configures the server of a serving image: give --base too\n',
      ],
      [
        [
          'catalog',
          'publish',
          '--name',
          'x',
          '--address',
          'nonsense',
          '--kubeconfig',
          join(scratch, 'no-kubeconfig'),
        ],
        'opkit: --address "nonsense": give <host>:<port> of the registry server, e.g. 127.0.0.1:50051\n',
      ],
      [
        [
          'catalog',
          'publish',
          '--name',
          'Opkit_Catalog',
          '--address',
          'a:1',
          '--kubeconfig',
          join(scratch, 'no-kubeconfig'),
        ],
        "opkit: --name \"Opkit_Catalog\": a CatalogSource name is lower-case letters, digits, '-' and '.'\n",
      ],
      [
        [
          'catalog',
          'publish',
          '--name',
          'x',
          '--namespace',
          'olm.ns',
          '--address',
          'a:1',
          '--kubeconfig',
          join(scratch, 'no-kubeconfig'),
        ],
        'opkit: --namespace "olm.ns": a namespace is lower-case letters, digits and \'-\' (at most 63)\n',
      ],
      [
        ['bundle', 'push', '--repository', 'Quay.io/Acme'],
        'opkit: --repository "Quay.io/Acme": invalid image reference "Quay.io/Acme": invalid repository component "Acme"\n',
      ],
      [
        ['bundle', 'validate', 'bundles/memcached-operator/0.2.0', '--select-optional', 'name=bogus'],
        'opkit: selector "name=bogus" does not match any validator labels\n',
      ],
      [
        ['deploy', '--image', 'Not A Reference'],
        'opkit: --image "Not A Reference": invalid image reference "Not A Reference": invalid repository component "Not A Reference"\n',
      ],
      [
        ['image', 'pull', 'quay.io/acme/app:v1', join(scratch, 'l2'), '--username', 'me'],
        'opkit: --username needs --password or OPKIT_REGISTRY_PASSWORD\n',
      ],
    ] as const) {
      const refused = await cli(...args);
      expect(refused, args.join(' ')).toMatchObject({ code: 1, stdout: '', stderr: message });
    }
    expect(existsSync(join(scratch, 'l1'))).toBe(false);
  });

  it('hostile catalogs are refused in one line, as opm refuses them, by every command that reads them', async () => {
    const bomb = join(scratch, 'alias-bomb', 'pkg');
    mkdirSync(bomb, { recursive: true });
    const levels = ['  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (let i = 1; i < 9; i++) {
      const [name, previous] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      levels.push(`  ${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    writeFileSync(
      join(bomb, 'catalog.yaml'),
      `schema: olm.package\nname: pkg\nlaughs:\n${levels.join('\n')}\n`,
    );
    const deep = join(scratch, 'deep-json', 'pkg');
    mkdirSync(deep, { recursive: true });
    writeFileSync(
      join(deep, 'catalog.json'),
      `{"schema":"olm.package","name":"pkg","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}\n`,
    );
    for (const [dir, reason] of [
      [
        join(scratch, 'alias-bomb'),
        'error converting YAML to JSON: yaml: document contains excessive aliasing',
      ],
      [join(scratch, 'deep-json'), "json: offset 10041: invalid character '[' exceeded max depth"],
    ] as const) {
      for (const args of [
        ['catalog', 'validate', dir],
        ['catalog', 'render', dir],
        ['graph', dir, '--package', 'pkg'],
      ]) {
        const result = await cli(...args);
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stderr, args.join(' ')).toContain(reason);
        expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      }
      const opmResult = await run(opm, ['validate', dir]).catch((e: { stderr: string }) => e);
      expect((opmResult as { stderr: string }).stderr).toContain(reason);
    }
  });
});

describe('start-up', () => {
  /**
   * What a run of opkit loads: every module as a URL, from a module-loading hook, and the sources bundled into
   * the build's files among them (esbuild starts each bundled module with a comment naming its source file,
   * relative to the CLI's package: `src/…` or `../../libs/…`).
   */
  async function loaded(
    ...args: string[]
  ): Promise<{ stdout: string; modules: string[]; sources: string[] }> {
    const hook = `import { registerHooks } from 'node:module';
registerHooks({ load(url, context, next) { process.stderr.write('loaded ' + url + '\\n'); return next(url, context); } });`;
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, opkit, ...args],
      { cwd: root },
    );
    const modules = stderr.split('\n').flatMap((l) => (l.startsWith('loaded ') ? [l.slice(7)] : []));
    const dist = new URL('../dist/', new URL(`file://${opkit}`)).href;
    const sources = modules
      .filter((url) => url.startsWith(dist))
      .flatMap((url) => readFileSync(new URL(url), 'utf8').match(/^\/\/ \S+\.ts$/gm) ?? [])
      .map((comment) => comment.slice(3));
    return { stdout, modules, sources };
  }

  it('runs its build in its own process and prints its help without loading the libraries', async () => {
    const { stdout, modules, sources } = await loaded('--help');
    expect(stdout).toMatch(/^Usage: opkit /);
    expect(modules).toContain(new URL('../dist/main.js', new URL(`file://${opkit}`)).href);
    expect(sources).toContain('src/program.ts');
    expect(modules.filter((url) => /\/(@kubernetes|@grpc|esbuild|tsx|yaml|tar)\//.test(url))).toEqual([]);
    // The one library module every error line passes through, and which imports nothing.
    const redaction = /\/libs\/oci\/src\/redact\.ts$/;
    expect(sources.filter((path) => /\/libs\/(olm|oci)\//.test(path) && !redaction.test(path))).toEqual([]);
  });

  it('validates and renders a JSON catalog without the YAML library or the OLM concepts it does not use', async () => {
    for (const args of [
      ['catalog', 'validate', 'catalog/configs'],
      ['catalog', 'render', 'catalog/configs', '-o', 'json'],
    ]) {
      const { modules, sources } = await loaded(...args);
      expect(sources, args.join(' ')).toContain('../../libs/olm/src/catalog/declcfg/load.ts');
      expect(
        modules.filter((url) => /\/node_modules\/yaml\//.test(url)),
        args.join(' '),
      ).toEqual([]);
      const unused = sources.filter((path) =>
        /\/libs\/olm\/src\/(registry|install|scorecard|graph|validation)\//.test(path),
      );
      expect(unused, args.join(' ')).toEqual([]);
    }
  });

  it('serves a catalog from its serve cache without the catalog loader, the model builder or the image code', async () => {
    const cacheDir = join(scratch, 'serve-cache-modules');
    // The first run writes the cache; the second finds it and uses it, as a server starting from it does.
    await run(
      process.execPath,
      [opkit, 'catalog', 'serve', 'catalog/configs', '--cache-dir', cacheDir, '--cache-only'],
      {
        cwd: root,
      },
    );
    const { stdout, modules, sources } = await loaded(
      'catalog',
      'serve',
      'catalog/configs',
      '--cache-dir',
      cacheDir,
      '--cache-only',
    );
    expect(stdout).toMatch(/serve cache .*: used/);
    expect(sources).toContain('../../libs/olm/src/registry/serve-cache.ts');
    const unused = sources.filter((path) =>
      /\/libs\/olm\/src\/(catalog\/declcfg\/(load|stream|blobs)|catalog\/model|registry\/registry-model|bundle)\b|\/libs\/oci\/src\/(registry-client|layout)|src\/catalog-source\.ts/.test(
        path,
      ),
    );
    expect(unused).toEqual([]);
    expect(modules.filter((url) => /\/node_modules\/(yaml|tar)\//.test(url))).toEqual([]);
  });

  it("keeps V8's young generation at its first size, where it would grow to 32 MiB", async () => {
    // Objects that survive, made after the CLI has run: enough to grow the young generation to its most.
    const hook = `import v8 from 'node:v8';
process.on('exit', () => {
  const kept = [];
  for (let i = 0; i < 300000; i++) kept.push({ i, s: 'x' + i });
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stderr.write('young generation ' + young.space_size + ' bytes, ' + kept.length + ' kept\\n');
});`;
    const youngGeneration = async (...args: string[]): Promise<number> => {
      const { stderr } = await run(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, ...args],
        { cwd: root },
      );
      return Number(/young generation (\d+) bytes, 300000 kept/.exec(stderr)?.[1]);
    };
    expect(await youngGeneration(opkit, '--version')).toBeLessThanOrEqual(2 * 1024 * 1024);
    // Without the CLI's setting, the same objects grow it.
    expect(await youngGeneration('-e', '0')).toBeGreaterThan(8 * 1024 * 1024);
  });

  it('keeps its compiled code in a per-user cache, and runs the same where it cannot keep one', async () => {
    const version = async (env: NodeJS.ProcessEnv): Promise<string> => {
      const { stdout } = await run(process.execPath, [opkit, '--version'], {
        cwd: root,
        env: { ...process.env, NODE_COMPILE_CACHE: '', ...env },
        timeout: 30_000,
      });
      return stdout;
    };
    const cacheHome = join(scratch, 'cache-home');
    mkdirSync(cacheHome);
    const expected = await version({ XDG_CACHE_HOME: cacheHome });
    // Node keeps the cache from 22.1 on; older Node runs without one.
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    if (major > 22 || (major === 22 && minor >= 1)) {
      expect(readdirSync(join(cacheHome, 'opkit', 'compile-cache'))).not.toEqual([]);
    }
    // A base that does not exist, a file, and a tree where directories cannot be made (a recursive mkdir
    // below /proc never returns).
    const file = join(scratch, 'cache-file');
    writeFileSync(file, '');
    const procfs = existsSync('/proc/self') ? ['/proc'] : [];
    for (const base of [join(scratch, 'no-such-dir'), file, ...procfs]) {
      expect(await version({ XDG_CACHE_HOME: base }), base).toBe(expected);
    }
    expect(existsSync(join(scratch, 'no-such-dir'))).toBe(false);
  });

  it('runs as the catalog image bundles it: one file, no package.json beside it', async () => {
    const { bundleOperator } = await import('../src/operator-bundle.js');
    const dir = mkdtempSync(join(tmpdir(), 'opkit-bundled-'));
    try {
      const cliDir = join(root, 'tools', 'opkit');
      writeFileSync(
        join(dir, 'main.mjs'),
        (await bundleOperator({ operatorDir: cliDir, entry: join(cliDir, 'src', 'main.ts') })).code,
      );
      const { stdout } = await run(process.execPath, [join(dir, 'main.mjs'), 'catalog', 'serve', '--help'], {
        cwd: dir,
      });
      expect(stdout).toMatch(/^Usage: opkit catalog serve /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints its version; the commands keep their own --version options', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'tools/opkit/package.json'), 'utf8')) as {
      version: string;
    };
    expect(await cli('--version')).toMatchObject({ code: 0, stdout: `${version}\n` });
    const generate = await cli(
      ...['bundle', 'generate', '--operator', join(scratch, 'nowhere'), '--package', 'p'],
      ...['--version', '9.9.9', '--out', join(scratch, 'nowhere-bundle')],
    );
    expect(generate.code).toBe(1);
    expect(generate.stdout).not.toContain(version);
  });
});

describe('opkit scorecard', () => {
  const config = join(scratch, 'scorecard-config.yaml');
  const test = (name: string, suite: string) =>
    `  - entrypoint: [scorecard-test, ${name}]\n    image: quay.io/operator-framework/scorecard-test:v1.42.0\n    labels: {suite: ${suite}, test: ${name}-test}\n`;
  beforeAll(() => {
    writeFileSync(
      config,
      'apiVersion: scorecard.operatorframework.io/v1alpha3\nkind: Configuration\nmetadata: {name: config}\n' +
        `stages:\n- parallel: true\n  tests:\n${[
          test('basic-check-spec', 'basic'),
          test('olm-bundle-validation', 'olm'),
          test('olm-crds-have-validation', 'olm'),
          test('olm-crds-have-resources', 'olm'),
          test('olm-spec-descriptors', 'olm'),
          test('olm-status-descriptors', 'olm'),
        ]
          .join('')
          .replace(/^/gm, '  ')}`,
    );
  });

  interface TestList {
    kind: string;
    items: { status: { results: { name: string; state: string; errors?: string[] }[] } }[];
  }
  const results = (stdout: string) =>
    (JSON.parse(stdout) as TestList).items.flatMap((item) => item.status.results);

  it('passes memcached-operator 0.1.0 on both suites, as a v1alpha3 TestList', async () => {
    const { code, stdout } = await cli(
      'scorecard',
      'bundles/memcached-operator/0.1.0',
      '--config',
      config,
      '-o',
      'json',
    );
    expect((JSON.parse(stdout) as TestList).kind).toBe('TestList');
    expect(results(stdout).map((r) => `${r.name}: ${r.state}`)).toEqual([
      'basic-check-spec: pass',
      'olm-bundle-validation: pass',
      'olm-crds-have-validation: pass',
      'olm-crds-have-resources: pass',
      'olm-spec-descriptors: pass',
      'olm-status-descriptors: pass',
    ]);
    expect(code).toBe(0);
  });

  it('fails a bundle whose example uses a spec field without a descriptor, exit code 1', async () => {
    // 0.2.0, as released, has a v1alpha1 example with memoryLimitMB, which its CSV does not describe.
    const { code, stdout } = await cli(
      ...['scorecard', 'bundles/memcached-operator/0.2.0', '--config', config],
      ...['-l', 'test=olm-spec-descriptors-test', '-o', 'json'],
    );
    expect(results(stdout)).toEqual([
      expect.objectContaining({
        name: 'olm-spec-descriptors',
        state: 'fail',
        errors: ['memoryLimitMB does not have a spec descriptor'],
      }),
    ]);
    expect(code).toBe(1);
  });

  it.each(['memcached-operator/0.3.0', 'redis-operator/0.2.0'])(
    'passes the current bundle %s with the scorecard config it ships',
    async (bundle) => {
      const { code, stdout } = await cli('scorecard', `bundles/${bundle}`, '-o', 'json');
      const states = results(stdout).map((r) => `${r.name}: ${r.state}`);
      expect(states).toHaveLength(6);
      expect(states.filter((s) => !s.endsWith(': pass'))).toEqual([]);
      expect(code).toBe(0);
    },
  );

  it('says what is missing when a bundle has no scorecard config', async () => {
    const { code, stderr } = await cli('scorecard', 'bundles/memcached-operator/0.1.0');
    expect(code).toBe(1);
    expect(stderr).toMatch(/no scorecard config \(pass --config or add tests\/scorecard\/config\.yaml\)/);
  });
});
