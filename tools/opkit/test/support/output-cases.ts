// Rows of the hostile-input table for commands that write a directory: an output named where the user's
// files are (the current directory, an input, a directory holding one, a symlink to one, an earlier output
// with something in the way) is refused in one line, and every file there is left as it was.
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@opkit/test-cluster';
import { operatorProjectDir } from './operator-project.js';

/** A refusal to write an output, and the files (relative to the scratch directory) that must survive it. */
export interface OutputCase {
  readonly name: string;
  readonly args: () => string[];
  readonly message: RegExp;
  /** The working directory of the run, relative to the scratch directory. */
  readonly cwd?: string;
  /** Filled by `args`: path (relative to the scratch directory) → content it must still have afterwards. */
  readonly kept: Map<string, string>;
}

const BUNDLE_ANNOTATIONS =
  'annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n' +
  '  operators.operatorframework.io.bundle.manifests.v1: manifests/\n' +
  '  operators.operatorframework.io.bundle.metadata.v1: metadata/\n' +
  '  operators.operatorframework.io.bundle.package.v1: memcached-operator\n' +
  '  operators.operatorframework.io.bundle.channels.v1: alpha\n';

/** The output-directory rows, their fixtures made under `scratch/guard` when a row's arguments are asked for. */
export function outputCases(scratch: string): OutputCase[] {
  const at = (rel: string) => join(scratch, 'guard', rel);
  const put = (rel: string, content: string, kept: Map<string, string>): void => {
    mkdirSync(join(at(rel), '..'), { recursive: true });
    writeFileSync(at(rel), content);
    kept.set(join('guard', rel), content);
  };
  const keep = (rel: string, kept: Map<string, string>): void => {
    kept.set(join('guard', rel), readFileSync(at(rel), 'utf8'));
  };
  /** A copy of the memcached operator's project: its config (what kustomize reads) and its own files. */
  const operator = (kept: Map<string, string>): string => {
    if (!existsSync(at('operator/config'))) {
      cpSync(join(operatorProjectDir('@opkit/memcached-operator'), 'config'), at('operator/config'), {
        recursive: true,
      });
    }
    put('operator/package.json', '{"name":"memcached-operator"}\n', kept);
    put('operator/src/main.ts', 'start();\n', kept);
    keep('operator/config/manifests/kustomization.yaml', kept);
    return 'guard/operator';
  };
  /** A copy of the repository's catalog and the memcached bundles its template names. */
  const repo = (kept: Map<string, string>): void => {
    if (!existsSync(at('repo'))) {
      cpSync(join(workspaceRoot, 'catalog'), at('repo/catalog'), { recursive: true });
      cpSync(join(workspaceRoot, 'bundles', 'memcached-operator'), at('repo/bundles/memcached-operator'), {
        recursive: true,
      });
    }
    keep('repo/catalog/templates/memcached-operator.yaml', kept);
    keep('repo/catalog/configs/redis-operator/catalog.json', kept);
    keep('repo/bundles/memcached-operator/0.1.0/metadata/annotations.yaml', kept);
  };
  const generate = (operatorDir: string, out: string) => [
    ...['bundle', 'generate', '--operator', operatorDir, '--package', 'memcached-operator'],
    ...['--version', '0.3.0', '--out', out],
  ];
  const cases: OutputCase[] = [];
  const row = (
    c: Omit<OutputCase, 'kept' | 'args'>,
    setup: (kept: Map<string, string>) => string[],
  ): void => {
    const kept = new Map<string, string>();
    cases.push({ ...c, kept, args: () => setup(kept) });
  };

  row(
    {
      name: 'output: bundle generate --out . among other files',
      cwd: 'guard/here',
      message: /^opkit: --out \.: the current directory; write the bundle to a directory of its own$/,
    },
    (kept) => {
      put('here/notes.txt', 'mine\n', kept);
      return generate(join(scratch, operator(kept)), '.');
    },
  );
  row(
    {
      name: 'output: bundle generate --out <the operator project>',
      message:
        /^opkit: --out guard\/operator: is --operator guard\/operator, an input; write the bundle elsewhere$/,
    },
    (kept) => generate(operator(kept), 'guard/operator'),
  );
  row(
    {
      name: 'output: bundle generate --out <a directory holding the operator project>',
      message: /^opkit: --out guard: holds --operator guard\/operator, an input; write the bundle elsewhere$/,
    },
    (kept) => generate(operator(kept), 'guard'),
  );
  row(
    {
      name: 'output: bundle generate --out <a symlink to the operator project>',
      message:
        /^opkit: --out guard\/link \(\S+\/guard\/operator\): is --operator guard\/operator, an input; write the bundle elsewhere$/,
    },
    (kept) => {
      const dir = operator(kept);
      if (!existsSync(at('link'))) symlinkSync(at('operator'), at('link'));
      return generate(dir, 'guard/link');
    },
  );
  row(
    {
      name: 'output: bundle generate --operator . --out config --force (the kustomize input)',
      cwd: 'guard/operator',
      message:
        /^opkit: --out config: is --operator's config directory \S+\/guard\/operator\/config, an input; write the bundle elsewhere$/,
    },
    (kept) => {
      operator(kept);
      keep('operator/config/manifests/bases/memcached-operator.clusterserviceversion.yaml', kept);
      return [...generate('.', 'config'), '--force'];
    },
  );
  row(
    {
      name: 'output: bundle generate into an earlier bundle with a file where tests/ goes',
      message:
        /^opkit: --out \S+guard\/bundle: \S+guard\/bundle\/tests is not a directory, where tests\/scorecard\/config\.yaml goes; move it away$/,
    },
    (kept) => {
      put('bundle/metadata/annotations.yaml', BUNDLE_ANNOTATIONS, kept);
      put('bundle/manifests/old.clusterserviceversion.yaml', 'kind: ClusterServiceVersion\n', kept);
      put('bundle/tests', 'in the way\n', kept);
      return generate(operator(kept), join(scratch, 'guard/bundle'));
    },
  );
  row(
    {
      name: 'output: catalog build --out <the directory holding the templates>',
      cwd: 'guard/repo',
      message:
        /^opkit: --out catalog: holds --template catalog\/templates\/memcached-operator\.yaml, an input; write the catalog elsewhere$/,
    },
    (kept) => {
      repo(kept);
      return [
        'catalog',
        'build',
        '--template',
        'catalog/templates/memcached-operator.yaml',
        '--out',
        'catalog',
      ];
    },
  );
  row(
    {
      name: 'output: catalog build --out .',
      cwd: 'guard/repo',
      message: /^opkit: --out \.: the current directory; write the catalog to a directory of its own$/,
    },
    (kept) => {
      repo(kept);
      return ['catalog', 'build', '--template', 'catalog/templates/memcached-operator.yaml', '--out', '.'];
    },
  );
  row(
    {
      name: 'output: bundle image <dir> --layout <dir>',
      message: /^opkit: --layout (\S+): is <dir> \1, an input; write the OCI layout elsewhere$/,
    },
    (kept) => {
      repo(kept);
      const bundle = 'guard/repo/bundles/memcached-operator/0.1.0';
      return ['bundle', 'image', bundle, '--layout', bundle];
    },
  );
  row(
    {
      name: 'output: catalog image --layout <a directory that is not a layout>',
      message:
        /^opkit: --layout guard\/repo\/bundles: not empty and not an OCI layout \(a layout has an oci-layout file\); name an empty or new directory$/,
    },
    (kept) => {
      repo(kept);
      return ['catalog', 'image', 'guard/repo/catalog/configs', '--layout', 'guard/repo/bundles'];
    },
  );
  return cases;
}
