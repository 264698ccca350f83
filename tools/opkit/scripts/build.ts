// Builds the CLI into `dist/`: the commands and the workspace libraries they use, bundled from their TypeScript
// sources into ES modules, one per command group and shared chunks between them (esbuild's code splitting), so
// that a command loads what it runs and nothing else. npm packages stay outside the bundle and load from
// node_modules as before. A catalog command loads 5–7 files of the build instead of the 52–77 modules of a
// file-per-module build, each of which Node resolves, reads and links: 20–60 ms of every run.
//
// Entry points: `main.js` (the `opkit` command, run by `bin/opkit.js`), `health-probe.js` (the probe program
// the catalog image bundles from it when the sources are absent) and `olm-install.js` (the subpath
// `@opkit/cli/olm-install`, with its declarations in `dist/types/`, for the test kit's clusters). Every file is written at the top of `dist/`,
// so a module's `import.meta` points one level below the package, as it does in `src/`.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

const packageDir = join(import.meta.dirname, '..');
const outdir = join(packageDir, 'dist');

const WORKSPACE_SCOPE = '@opkit/';

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: packageDir,
  entryPoints: {
    main: 'src/main.ts',
    'health-probe': 'src/health-probe.ts',
    'olm-install': 'src/olm-install/index.ts',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Workspace libraries from their sources, as the operator images bundle them.
  conditions: ['@opkit/source'],
  chunkNames: '[name]-[hash]',
  logLevel: 'warning',
  metafile: true,
  plugins: [
    {
      name: 'npm-packages-outside',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith(WORKSPACE_SCOPE) ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
});
// The declarations of `@opkit/cli/olm-install`, against the libraries' built declarations.
execFileSync(
  process.execPath,
  [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.olm-install.json'],
  { cwd: packageDir, stdio: 'inherit' },
);
const count = Object.keys(result.metafile.outputs).length;
process.stdout.write(`built ${count} modules into ${relative(process.cwd(), outdir) || '.'}\n`);
