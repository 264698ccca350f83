// The packages as a user gets them: `npm pack` each publishable package (its build, from `nx run <p>:build`),
// install the tarballs into an empty project outside the workspace (dependencies from the npm registry), then
// type-check and run an operator against the packed runtime and run the packed `opkit` command.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { releasedData, workspaceRoot } from '@opkit/test-cluster';
import {
  eventually,
  KubeApiError,
  KubeRest,
  testKubeConfig,
  useTestNamespace,
} from '@opkit/test-cluster/vitest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';

const root = workspaceRoot;
const require = createRequire(import.meta.url);

/** The publishable packages: directory and name. */
const PACKAGES = [
  { dir: 'libs/controller-runtime', name: '@opkit/controller-runtime' },
  { dir: 'libs/controller-tools', name: '@opkit/controller-tools' },
  { dir: 'libs/olm', name: '@opkit/olm' },
  { dir: 'libs/oci', name: '@opkit/oci' },
  { dir: 'tools/opkit', name: '@opkit/cli' },
] as const;

interface PackedFile {
  readonly path: string;
}

/** The environment of a child npm or node: none of the `npm_*` settings an enclosing `npm test` exports. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'OPKIT_FROM_SOURCE' && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

async function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      env: cleanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`, {
      cause: error,
    });
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The packages a module imports by name (static, dynamic and type imports; `node:` and builtins left out). */
function importedPackages(source: string): Set<string> {
  const names = new Set<string>();
  const specifiers = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"\s]+)\1/g;
  for (const [, , specifier] of source.matchAll(specifiers)) {
    if (specifier === undefined || specifier.startsWith('.') || specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    if (!builtinModules.includes(name)) names.add(name);
  }
  return names;
}

const GREETING = { apiVersion: 'example.opkit.dev/v1', kind: 'Greeting' } as const;

interface GreetingObject {
  readonly metadata: { readonly finalizers?: readonly string[] };
  readonly status?: { readonly conditions?: readonly { type: string; status: string }[] };
}

/** The Greeting CRD exactly as the runtime's README shows it beside the minimal operator. */
async function installGreetingCrd(rest: KubeRest): Promise<void> {
  const readme = readFileSync(join(root, 'libs/controller-runtime/README.md'), 'utf8');
  const block = /## A minimal operator[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'the README shows the CRD of the minimal operator').toBeDefined();
  const crd = parse(block ?? '') as { kind: string; metadata: { name: string } };
  expect(crd.kind).toBe('CustomResourceDefinition');
  const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  try {
    await rest.request('POST', path, { body: crd });
  } catch (error) {
    // The cluster of OPKIT_TEST_KUBECONFIG may have it from an earlier run.
    if (!(error instanceof KubeApiError && error.status === 409)) throw error;
  }
  await eventually('the Greeting CRD to be established', async () => {
    const live = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
      'GET',
      `${path}/${crd.metadata.name}`,
    );
    return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });
}

let scratch: string;
let consumer: string;
const packed = new Map<string, readonly PackedFile[]>();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'opkit-packaging-'));
  const tarballs = join(scratch, 'tarballs');
  consumer = join(scratch, 'consumer');
  mkdirSync(tarballs);
  mkdirSync(consumer);
  const files: string[] = [];
  for (const pkg of PACKAGES) {
    const out = await run('npm', ['pack', '--json', '--pack-destination', tarballs], join(root, pkg.dir));
    const [result] = JSON.parse(out) as { filename: string; files: PackedFile[] }[];
    packed.set(pkg.name, result!.files);
    files.push(join(tarballs, result!.filename));
  }
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'opkit-consumer', version: '0.0.0', private: true, type: 'module' }),
  );
  const workspace = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      ...files,
      `@types/node@${workspace.devDependencies['@types/node']}`,
      // @kubernetes/client-node's declarations import `ws` (through isomorphic-ws) without depending on its
      // types; a project that checks declarations (skipLibCheck off, as below) installs them itself.
      '@types/ws@^8',
    ],
    consumer,
  );
}, 600_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the tarballs', () => {
  it.each(PACKAGES)('$name holds its build and no tests', ({ name }) => {
    const paths = packed.get(name)!.map((f) => f.path);
    expect(paths).toContain('package.json');
    expect(paths).toContain(name === '@opkit/cli' ? 'dist/main.js' : 'dist/index.js');
    if (name !== '@opkit/cli') expect(paths).toContain('dist/index.d.ts');
    expect(paths.filter((p) => /\.spec\.|spec-fixtures|tsconfig|vitest\.config|^test\//.test(p))).toEqual([]);
  });

  it.each(PACKAGES)('$name depends on exactly the packages its build imports', ({ name }) => {
    const dir = join(consumer, 'node_modules', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const imported = new Set<string>();
    for (const file of filesUnder(join(dir, 'dist'))) {
      if (file.endsWith('.js') || file.endsWith('.d.ts')) {
        for (const pkg of importedPackages(readFileSync(file, 'utf8'))) imported.add(pkg);
      }
    }
    // A peer dependency counts: the CLI's `olm-install` declarations name the runtime's client, which its
    // users bring.
    const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
    expect([...imported].sort()).toEqual(Object.keys(declared).sort());
  });
});

describe('an operator project on the packed runtime', () => {
  const namespace = useTestNamespace({ prefix: 'packed' });

  // Type-checks the project against the packages' declarations (tsc fails the hook otherwise) and compiles it.
  beforeAll(async () => {
    // The README's minimal operator, importing the packages as an operator outside this repository does.
    const example = readFileSync(join(root, 'libs/controller-runtime/examples/minimal-operator.ts'), 'utf8');
    const operator = example
      .replace("from '../src/index.js'", "from '@opkit/controller-runtime'")
      .replace("from '../src/controllerutil/index.js'", "from '@opkit/controller-runtime/controllerutil'")
      .replace("from '../src/manager/index.js'", "from '@opkit/controller-runtime/manager'")
      // Free ports for its metrics and probes: the test machine may have 8080 and 8081 taken.
      .replace("metricsBindAddress: ':8080'", "metricsBindAddress: '127.0.0.1:0'")
      .replace("healthProbeBindAddress: ':8081'", "healthProbeBindAddress: '127.0.0.1:0'");
    expect(operator).not.toMatch(/from '\.\.\/src\/|:808[01]'/);
    writeFileSync(join(consumer, 'operator.ts'), operator);
    // Its reconciler without the manager that would connect to a cluster, for a unit test as the README shows.
    const managerAt = operator.indexOf('\nconst manager = new Manager(');
    expect(managerAt).toBeGreaterThan(0);
    writeFileSync(
      join(consumer, 'reconciler.ts'),
      `${operator.slice(0, managerAt)}\nexport { greetingReconciler };\n`,
    );
    writeFileSync(
      join(consumer, 'smoke.ts'),
      `import { deepStrictEqual, strictEqual } from 'node:assert';
import type { KubeObject } from '@opkit/controller-runtime';
import { FakeClient } from '@opkit/controller-runtime/testing';
import * as olm from '@opkit/olm';
import * as registry from '@opkit/olm/registry';
import * as oci from '@opkit/oci';
import { greetingReconciler } from './reconciler.js';

const GREETING = { apiVersion: 'example.opkit.dev/v1', kind: 'Greeting' };
const context = { signal: new AbortController().signal, reconcileID: 'smoke', controller: 'greeting' };
const hello = { ...GREETING, metadata: { name: 'hello', namespace: 'default' }, spec: { message: 'hi' } };

const client = new FakeClient({ objects: [hello], statusSubresource: [GREETING] });
await greetingReconciler(client, { event: () => {} })({ namespace: 'default', name: 'hello' }, context);
const configMap = await client.get<KubeObject & { data?: Record<string, string> }>(
  { apiVersion: 'v1', kind: 'ConfigMap' },
  'hello-greeting',
  'default',
);
strictEqual(configMap.data?.message, 'hi');
deepStrictEqual(
  client.writes().map((w) => \`\${w.verb} \${w.kind}\`),
  ['patch Greeting', 'apply ConfigMap', 'patch Greeting'],
);
strictEqual(typeof olm.loadCatalog, 'function');
strictEqual(typeof registry.checkHealth, 'function');
strictEqual(typeof oci.RegistryClient, 'function');
process.stdout.write('reconciled\\n');
`,
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          lib: ['es2023'],
          types: ['node'],
          strict: true,
          // Check the packages' declarations too: a type they name but do not ship is an error here.
          skipLibCheck: false,
          outDir: 'out',
        },
        include: ['*.ts'],
      }),
    );
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], consumer);
  }, 300_000);

  it('reconciles with the fake client', async () => {
    expect(await run(process.execPath, ['out/smoke.js'], consumer)).toBe('reconciled\n');
  });

  it('runs as an operator against a cluster: creates, updates and finalizes', async () => {
    const kubeconfig = inject('opkitKubeconfig');
    const rest = new KubeRest(testKubeConfig());
    await installGreetingCrd(rest);
    const ns = namespace.name;
    const operator = spawn(process.execPath, ['out/operator.js'], {
      cwd: consumer,
      env: { ...cleanEnv(), KUBECONFIG: kubeconfig, WATCH_NAMESPACE: ns, POD_NAMESPACE: ns },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    operator.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    operator.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => operator.on('exit', (code) => resolve(code)));
    try {
      const greetings = `/apis/example.opkit.dev/v1/namespaces/${ns}/greetings`;
      const configMap = `/api/v1/namespaces/${ns}/configmaps/hello-greeting`;
      await rest.request('POST', greetings, {
        body: { ...GREETING, metadata: { name: 'hello' }, spec: { message: 'hi' } },
      });
      await eventually('the ConfigMap and the Ready condition', async () => {
        const cm = await rest.request<{ data?: Record<string, string> }>('GET', configMap);
        const greeting = await rest.request<GreetingObject>('GET', `${greetings}/hello`);
        const ready = greeting.status?.conditions?.find((c) => c.type === 'Ready');
        return (
          cm.data?.message === 'hi' && ready?.status === 'True' && greeting.metadata.finalizers?.length === 1
        );
      });

      await rest.request('PATCH', `${greetings}/hello`, {
        body: { spec: { message: 'hello again' } },
        contentType: 'application/merge-patch+json',
      });
      await eventually('the ConfigMap to follow the spec', async () => {
        const cm = await rest.request<{ data?: Record<string, string> }>('GET', configMap);
        return cm.data?.message === 'hello again';
      });

      // The finalizer holds the Greeting until the operator has run its cleanup and removed it.
      await rest.request('DELETE', `${greetings}/hello`);
      await eventually('the Greeting to be finalized and gone', async () => {
        try {
          await rest.request('GET', `${greetings}/hello`);
          return false;
        } catch (error) {
          return error instanceof KubeApiError && error.status === 404;
        }
      });
      expect(log).not.toMatch(/"level":"error"/);
    } finally {
      operator.kill('SIGTERM');
    }
    // A graceful stop on SIGTERM, as in a pod.
    expect(await exited, log).toBe(0);
  });
});

describe('the packed opkit command', () => {
  const opkit = () => join(consumer, 'node_modules', '.bin', 'opkit');

  it('prints its version and help', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'tools/opkit/package.json'), 'utf8')) as {
      version: string;
    };
    expect(await run(opkit(), ['--version'], consumer)).toBe(`${version}\n`);
    const help = await run(opkit(), ['--help'], consumer);
    for (const command of ['bundle', 'catalog', 'cleanup', 'deploy', 'graph', 'image', 'run']) {
      expect(help).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });

  it('runs commands that load the packed libraries', async () => {
    const configs = releasedData.catalogConfigs;
    expect(
      await run(
        opkit(),
        ['graph', configs, '--package', 'memcached-operator', '--installed', '0.1.0'],
        consumer,
      ),
    ).toMatch(/^0\.1\.0 → \d+\.\d+\.\d+ \(replaces\)/);
    const rendered = await run(opkit(), ['catalog', 'render', configs, '-o', 'json'], consumer);
    expect(rendered).toMatch(/^\{\n {4}"schema": "olm\.package",\n {4}"name": "memcached-operator",/);
    const layout = join(scratch, 'catalog-layout');
    expect(await run(opkit(), ['catalog', 'image', configs, '--layout', layout], consumer)).toMatch(
      /^sha256:[0-9a-f]{64} /,
    );
  });
});
