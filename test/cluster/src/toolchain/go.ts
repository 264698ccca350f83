import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, type WriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ComponentBuildError, GoToolchainError } from '../errors.js';
import type { BuildContext } from './recipes.js';
import { MINIMUM_GO_VERSION } from './versions.js';

/** Environment for every Go command: never download a toolchain, static binaries, module mode. */
export function goEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', CGO_ENABLED: '0', ...extra };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Finds `go` (or `$OPKIT_GO`) and checks it is new enough; throws a one-line error otherwise. */
export function findGo(): { go: string; version: string } {
  const go = process.env.OPKIT_GO ?? 'go';
  const result = spawnSync(go, ['env', 'GOVERSION'], { env: goEnvironment(), encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new GoToolchainError(
      `no Go toolchain found ('${go}' did not run): install Go ${MINIMUM_GO_VERSION} or newer and put it on PATH, or set OPKIT_GO to its path`,
    );
  }
  const version = result.stdout.trim().replace(/^go/, '');
  const numeric = version.match(/^\d+(\.\d+){0,2}/)?.[0] ?? '0';
  if (compareVersions(numeric, MINIMUM_GO_VERSION) < 0) {
    throw new GoToolchainError(
      `Go ${version} is too old to build the control plane: install Go ${MINIMUM_GO_VERSION} or newer (GOTOOLCHAIN=local is used, so Go will not download one)`,
    );
  }
  return { go, version };
}

export interface GoRunOptions {
  readonly cwd: string;
  readonly log: WriteStream;
  readonly component: string;
  readonly logFile: string;
  readonly env?: Record<string, string>;
  /** Called with each `go: downloading …` line and the like, for progress output. */
  readonly onLine?: (line: string) => void;
}

/** Runs one go command, teeing its output into the build log; rejects with the last lines on failure. */
export function runGo(go: string, args: readonly string[], options: GoRunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    options.log.write(`$ go ${args.join(' ')}\n`);
    const child = spawn(go, args, { cwd: options.cwd, env: goEnvironment(options.env) });
    let stdout = '';
    const tail: string[] = [];
    const onText = (chunk: Buffer, isStdout: boolean) => {
      const text = chunk.toString();
      options.log.write(text);
      if (isStdout) stdout += text;
      for (const line of text.split('\n')) {
        if (line.trim().length === 0) continue;
        tail.push(line);
        if (tail.length > 5) tail.shift();
        if (!isStdout) options.onLine?.(line);
      }
    };
    child.stdout.on('data', (c: Buffer) => onText(c, true));
    child.stderr.on('data', (c: Buffer) => onText(c, false));
    child.on('error', (error) =>
      reject(new ComponentBuildError(options.component, options.logFile, error.message)),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new ComponentBuildError(
            options.component,
            options.logFile,
            `'go ${args.join(' ')}' exited ${code}: ${tail.join(' | ')}`,
          ),
        );
    });
  });
}

export function openBuildLog(path: string): WriteStream {
  return createWriteStream(path, { flags: 'a' });
}

/**
 * Makes `ctx.workDir` a wrapper module that requires `module@version` and imports `packages`, so that
 * `go build` can build them: what `go install …@version` does, without asking the proxy for the module's
 * version list (to report deprecations), a request some module proxies refuse.
 */
export async function wrapperModule(
  ctx: BuildContext,
  module: string,
  version: string,
  packages: readonly string[],
): Promise<void> {
  await ctx.go(['mod', 'init', 'local/wrapper']);
  writeFileSync(
    join(ctx.workDir, 'tools.go'),
    `//go:build tools\n\npackage tools\n\nimport (\n${packages.map((p) => `\t_ "${p}"\n`).join('')})\n`,
  );
  await ctx.go(['mod', 'edit', `-require=${module}@${version}`]);
  await ctx.go(['mod', 'tidy', '-e']);
}
