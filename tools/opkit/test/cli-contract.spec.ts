// The contract every opkit command keeps, run through the built CLI: what the project states is the default,
// missing required options are named at once, -o is a format and directories are --out/--layout, selectors
// that select nothing say what there is, and the commands beside the work (version, completion).
import { execFile, spawn } from 'node:child_process';
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
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { releasedData, workspaceRoot } from '@opkit/test-cluster';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const root = workspaceRoot;
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-contract-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs opkit in `cwd` (the repository root by default); resolves with its exit code and output. */
async function cli(
  args: readonly string[],
  cwd = root,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], { cwd, maxBuffer: 32 << 20 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Every file under `dir`, relative to it, with its text. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

describe('what the project states is the default', { timeout: 120_000 }, () => {
  it('bundle generate with only --operator writes the bundle build-all writes: package.json names the rest', async () => {
    const out = join(scratch, 'generated');
    const generated = await cli(['bundle', 'generate', '--operator', 'operators/memcached', '--out', out]);
    expect(generated, generated.stderr).toMatchObject({ code: 0, stdout: `wrote bundle ${out}\n` });
    // The operator image and version come from package.json, not controller:latest and 0.0.0.
    expect(tree(out)).toEqual(tree(releasedData.bundle('memcached-operator', '0.3.0')));
    const csv = readFileSync(join(out, 'manifests', 'memcached-operator.clusterserviceversion.yaml'), 'utf8');
    expect(csv).not.toContain('controller:latest');
    expect(csv).not.toMatch(/containerImage: .*:0\.0\.0/);
  });

  it('generate bundle is the same command, with the same options and result', async () => {
    const out = join(scratch, 'generated-sdk-spelling');
    const generated = await cli([
      'generate',
      'bundle',
      '--operator',
      'operators/memcached',
      '--out',
      out,
      '-o',
      'json',
    ]);
    expect(generated.code, generated.stderr).toBe(0);
    expect(JSON.parse(generated.stdout)).toMatchObject({
      dir: out,
      package: 'memcached-operator',
      version: '0.3.0',
    });
    expect(tree(out)).toEqual(tree(releasedData.bundle('memcached-operator', '0.3.0')));
    const options = (help: string) => help.slice(help.indexOf('Options:'), help.indexOf('Examples:'));
    const [ours, sdk] = await Promise.all([
      cli(['bundle', 'generate', '--help']),
      cli(['generate', 'bundle', '--help']),
    ]);
    expect(options(sdk.stdout)).toBe(options(ours.stdout));
  });

  it('bundle image without --layout writes the layout bundle build-all writes, tagged with the version', async () => {
    const bundle = releasedData.bundle('memcached-operator', '0.2.0');
    const imaged = await cli(['bundle', 'image', bundle, '-o', 'json'], scratch);
    expect(imaged.code, imaged.stderr).toBe(0);
    expect(JSON.parse(imaged.stdout)).toMatchObject({
      reference: 'dist/images/memcached-operator-bundle/0.2.0:0.2.0',
      layout: 'dist/images/memcached-operator-bundle/0.2.0',
      tag: '0.2.0',
    });
    const index = readFileSync(
      join(scratch, 'dist/images/memcached-operator-bundle/0.2.0/index.json'),
      'utf8',
    );
    expect(index).toContain('"org.opencontainers.image.ref.name":"0.2.0"');
  });

  it('a flag overrides what package.json states, and a project that states no package says which flag to give', async () => {
    const out = join(scratch, 'other-version');
    const generated = await cli([
      'bundle',
      'generate',
      '--operator',
      'operators/memcached',
      '--version',
      '0.4.0',
      '--out',
      out,
    ]);
    expect(generated.code, generated.stderr).toBe(0);
    const csv = readFileSync(join(out, 'manifests', 'memcached-operator.clusterserviceversion.yaml'), 'utf8');
    expect(csv).toContain('containerImage: registry.example/memcached-operator:0.4.0');
    // opkit.replaces is what 0.3.0 replaces, not 0.4.0.
    expect(csv).not.toContain('replaces:');
    const bare = join(scratch, 'bare-project');
    mkdirSync(bare);
    writeFileSync(join(bare, 'package.json'), '{"name": "bare"}\n');
    const refused = await cli(['bundle', 'generate', '--operator', bare, '--out', join(scratch, 'never')]);
    expect(refused).toMatchObject({
      code: 1,
      stderr: `opkit: give --package (${bare}/package.json states no opkit.package) and --version (${bare}/package.json states no version)\n`,
    });
    const empty = join(scratch, 'no-package-json');
    mkdirSync(empty);
    const missing = await cli(['bundle', 'generate', '--operator', empty, '--out', join(scratch, 'never')]);
    expect(missing).toMatchObject({
      code: 1,
      stderr: `opkit: give --package (there is no ${empty}/package.json) and --version (there is no ${empty}/package.json)\n`,
    });
  });
});

describe('required options', () => {
  it('every missing one is named in one error, and --help marks each (required)', async () => {
    const refused = await cli(['catalog', 'build']);
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: "error: required options '--template <file...>', '--out <dir>' not specified\n",
    });
    const one = await cli(['catalog', 'build', '--out', join(scratch, 'never')]);
    expect(one.stderr).toBe("error: required option '--template <file...>' not specified\n");
    const { stdout } = await cli(['catalog', 'build', '--help']);
    expect(stdout).toMatch(/--template <file\.\.\.>\s+template files, one per package \(required\)/);
    expect(stdout).toMatch(/--out <dir>\s+catalog directory:[\s\S]*?\(required\)/);
    expect(stdout).not.toMatch(/--bundles <dir>[^\n]*\(required\)/);
  });
});

describe('-o is a format; directories are --out and --layout', () => {
  it('image build -o <dir> still writes the layout there for one release, with a warning naming --layout', async () => {
    const layout = join(scratch, 'legacy-layout');
    const result = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--base',
      join(scratch, 'no-base'),
      '-o',
      layout,
    ]);
    expect(result.stderr).toContain(
      `opkit: image build -o <dir> is deprecated and goes in the next release: write --layout ${layout} (-o is the result format, text|json|yaml)\n`,
    );
    // It went on to the build, which fails on the missing base, not on -o.
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no-base');
    const format = await cli([
      'image',
      'build',
      '--operator',
      'operators/memcached',
      '--base',
      join(scratch, 'no-base'),
      '-o',
      'json',
    ]);
    expect(format.stderr).not.toContain('deprecated');
  });

  it('image build -o with a mistyped format is refused, naming --layout; --operator defaults to .', async () => {
    const typo = await cli(['image', 'build', '-o', 'jsno'], join(root, 'operators', 'memcached'));
    expect(typo).toMatchObject({
      code: 1,
      stderr:
        'opkit: -o jsno: not a result format (text, json, yaml); the OCI layout directory is --layout <dir>\n',
    });
    expect(existsSync(join(root, 'operators', 'memcached', 'jsno'))).toBe(false);
    // No --operator: the project in the current directory is built (here: up to the missing base).
    const here = await cli(
      ['image', 'build', '--base', join(scratch, 'no-base')],
      join(root, 'operators', 'memcached'),
    );
    expect(here.code).toBe(1);
    expect(here.stderr).not.toContain('--operator');
    expect(here.stderr).toContain('no-base');
  });

  it('deploy names a missing operator project before it asks the cluster anything', async () => {
    const missing = join(scratch, 'no-such-operator');
    const result = await cli([
      'deploy',
      '--operator',
      missing,
      '--kubeconfig',
      join(scratch, 'no-kubeconfig'),
    ]);
    expect(result).toMatchObject({
      code: 1,
      stderr: `opkit: --operator ${missing}: ${missing}/config/default does not exist (not an operator project?)\n`,
    });
  });

  it('results print as yaml where they print as json', async () => {
    const json = await cli(['catalog', 'validate', 'catalog/configs', '-o', 'json']);
    const yaml = await cli(['catalog', 'validate', 'catalog/configs', '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });
});

describe('scorecard selectors', { timeout: 60_000 }, () => {
  const bundle = 'bundles/memcached-operator/0.3.0';

  it('select by the labels the scorecard config has, as operator-sdk scorecard does', async () => {
    const selected = await cli(['scorecard', bundle, '-l', 'test=basic-check-spec-test', '-o', 'yaml']);
    expect(selected.code, selected.stderr).toBe(0);
    const list = parse(selected.stdout) as { items: { status: { results: { name: string }[] } }[] };
    expect(list.items.flatMap((i) => i.status.results.map((r) => r.name))).toEqual(['basic-check-spec']);
  });

  it('a selector that selects nothing lists the labels there are', async () => {
    const refused = await cli(['scorecard', bundle, '-l', 'test=basic-check-spec']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'opkit: no tests selected by selector "test=basic-check-spec"; the tests\' labels are: suite=basic, ' +
        'test=basic-check-spec-test, suite=olm, test=olm-bundle-validation-test, test=olm-crds-have-validation-test, ' +
        'test=olm-crds-have-resources-test, test=olm-spec-descriptors-test, test=olm-status-descriptors-test\n',
    );
  });
});

describe('bundle validate', { timeout: 60_000 }, () => {
  const bundle = 'bundles/memcached-operator/0.3.0';

  it('validates a bundle image in an OCI layout as it validates the directory', async () => {
    const layout = join(scratch, 'bundle-layout');
    expect((await cli(['bundle', 'image', bundle, '--layout', layout, '--tag', '0.3.0'])).code).toBe(0);
    const fromDir = await cli(['bundle', 'validate', bundle, '-o', 'json']);
    for (const source of [layout, `${layout}:0.3.0`]) {
      const fromLayout = await cli(['bundle', 'validate', source, '-o', 'json']);
      expect(fromLayout, source).toEqual(fromDir);
    }
    const catalog = join(scratch, 'catalog-layout');
    expect((await cli(['catalog', 'image', 'catalog/configs', '--layout', catalog])).code).toBe(0);
    const notBundle = await cli(['bundle', 'validate', catalog]);
    expect(notBundle).toMatchObject({
      code: 1,
      stderr: `opkit: ${catalog}: not a bundle image (no label operators.operatorframework.io.bundle.mediatype.v1)\n`,
    });
  });

  it('validates a bundle image in a registry, pulled as the other commands pull', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const dir = join(scratch, 'registry');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'config.yml'),
      `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`,
    );
    const registry = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 100; i++) {
        if ((await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => undefined))?.ok) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const layout = join(scratch, 'pushed-bundle');
      expect((await cli(['bundle', 'image', bundle, '--layout', layout])).code).toBe(0);
      const reference = `127.0.0.1:${port}/acme/memcached-operator-bundle:v0.3.0`;
      expect((await cli(['image', 'push', layout, reference, '--plain-http'])).code).toBe(0);
      const fromRegistry = await cli(['bundle', 'validate', reference, '--plain-http', '-o', 'json']);
      expect(fromRegistry).toEqual(await cli(['bundle', 'validate', bundle, '-o', 'json']));
      const missing = await cli(['bundle', 'validate', `127.0.0.1:${port}/acme/nothing:v1`, '--plain-http']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^opkit: .*acme\/nothing.*\n$/);
    } finally {
      registry.kill('SIGKILL');
    }
  });

  it('lists the optional validators, and passes --optional-values to them', async () => {
    const list = await cli(['bundle', 'validate', '--list-optional', '-o', 'json']);
    const validators = JSON.parse(list.stdout) as { name: string; labels: Record<string, string> }[];
    expect(validators.map((v) => v.name)).toEqual(
      expect.arrayContaining(['operatorhubv2', 'good-practices', 'alpha-deprecated-apis']),
    );
    const text = await cli(['bundle', 'validate', '--list-optional']);
    expect(text.stdout).toMatch(/^NAME +LABELS +DESCRIPTION\n/);
    expect(text.stdout).toMatch(/^good-practices +name=good-practices,suite=operatorframework +\S/m);
    // The deprecated-APIs validator reads k8s-version, and says so when it cannot parse it.
    const validate = (...values: string[]) =>
      cli([
        ...['bundle', 'validate', bundle, '--select-optional', 'name=alpha-deprecated-apis', '-o', 'json'],
        ...values,
      ]);
    const [without, unparsable, given] = await Promise.all([
      validate(),
      validate('--optional-values', 'k8s-version=one.two'),
      validate('--optional-values', 'k8s-version=1.36,container-tools=podman'),
    ]);
    const messages = (stdout: string) =>
      ((JSON.parse(stdout) as { outputs: { message: string }[] | null }).outputs ?? []).map((o) => o.message);
    expect(messages(without.stdout).join('\n')).not.toContain('k8s key option');
    expect(messages(unparsable.stdout).join('\n')).toContain(
      'invalid value informed via the k8s key option : one.two',
    );
    expect(given.code, given.stdout).toBe(0);
  });

  it('the deprecated operatorhub validator is answered with selectors that exist', async () => {
    const result = await cli(['bundle', 'validate', bundle, '--select-optional', 'name=operatorhub']);
    const hint = /--select-optional (suite=operatorframework) \(or (name=\S+), (name=\S+), (name=\S+)\)/.exec(
      result.stderr,
    );
    expect(hint).not.toBeNull();
    for (const selector of (hint ?? []).slice(1)) {
      const selected = await cli(['bundle', 'validate', bundle, '--select-optional', selector]);
      expect(selected.stderr, selector).not.toContain('does not match any validator labels');
    }
  });
});

describe('catalog templates', () => {
  it('name bundles by paths relative to the template when the working directory does not hold them', async () => {
    const work = join(scratch, 'elsewhere');
    mkdirSync(join(work, 'catalog', 'templates'), { recursive: true });
    cpSync(releasedData.bundles, join(work, 'bundles'), { recursive: true });
    const template = join(work, 'catalog', 'templates', 'memcached-operator.yaml');
    writeFileSync(
      template,
      readFileSync(join(releasedData.catalogTemplates, 'memcached-operator.yaml'), 'utf8').replaceAll(
        'image: bundles/',
        'image: ../../bundles/',
      ),
    );
    const out = join(work, 'catalog', 'configs');
    const built = await cli(
      ['catalog', 'build', '--template', template, '--bundles', join(work, 'bundles'), '--out', out],
      scratch,
    );
    expect(built.code, built.stderr).toBe(0);
    expect(readFileSync(join(out, 'memcached-operator', 'catalog.json'), 'utf8')).toBe(
      readFileSync(join(releasedData.catalogConfigs, 'memcached-operator', 'catalog.json'), 'utf8'),
    );
  });
});

describe('version and completion', () => {
  it('version prints the CLI, Node and the releases it targets, as text, json and yaml', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'tools/opkit/package.json'), 'utf8')) as {
      version: string;
    };
    const json = JSON.parse((await cli(['version', '-o', 'json'])).stdout) as Record<string, unknown>;
    expect(json).toEqual({
      opkit: version,
      node: process.versions.node,
      targets: { olm: '0.46.0', opm: '1.73.0' },
    });
    expect(parse((await cli(['version', '-o', 'yaml'])).stdout)).toEqual(json);
    expect((await cli(['version'])).stdout).toMatch(
      new RegExp(`^opkit ${version.replaceAll('.', '\\.')}\nnode `),
    );
  });

  it('completion bash completes the command tree and the options of the command typed', async () => {
    const script = join(scratch, 'completion.bash');
    writeFileSync(script, (await cli(['completion', 'bash'])).stdout);
    const complete = async (...words: string[]) => {
      const line = `source ${script}; COMP_WORDS=(opkit ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _opkit; echo "\${COMPREPLY[*]}"`;
      return (await run('bash', ['-c', line])).stdout.trim().split(' ');
    };
    expect(await complete('bund')).toEqual(['bundle']);
    expect(await complete('bundle', '')).toEqual(
      expect.arrayContaining(['generate', 'validate', 'image', 'push']),
    );
    expect(await complete('bundle', 'validate', '--list')).toEqual(['--list-optional']);
    expect(await complete('generate', 'bundle', '--use')).toEqual(['--use-image-digests']);
    for (const shell of ['zsh', 'fish']) {
      const result = await cli(['completion', shell]);
      expect(result.code, shell).toBe(0);
      expect(result.stdout, shell).toContain('scorecard');
    }
    expect(await cli(['completion', 'tcsh'])).toMatchObject({
      code: 1,
      stderr: 'opkit: completion tcsh: give one of bash, zsh, fish\n',
    });
  });
});
