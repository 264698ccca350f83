import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureComponents } from '../toolchain/build.js';
import type { ComponentRecipe } from '../toolchain/recipes.js';

const MAIN = fileURLToPath(new URL('./go-parsers/main.go', import.meta.url));

/** The Go libraries the oracle answers with: the versions opm v1.73.0 and operator-framework/api use. */
const MODULES = {
  'github.com/blang/semver/v4': 'v4.0.0',
  'go.podman.io/image/v5': 'v5.40.0',
  'sigs.k8s.io/yaml': 'v1.6.0',
} as const;

/**
 * `go-parsers` (`./go-parsers/main.go`): what blang/semver, the docker/reference of go.podman.io/image,
 * sigs.k8s.io/yaml, net/url, encoding/json and fmt make of an input, for differential tests of our parsers. Versioned by its source's content.
 */
export const goParsersRecipe: ComponentRecipe = {
  name: 'go-parsers',
  version: createHash('sha256')
    .update(readFileSync(MAIN))
    .update(JSON.stringify(MODULES))
    .digest('hex')
    .slice(0, 12),
  files: ['go-parsers'],
  async build(ctx) {
    await ctx.go(['mod', 'init', 'local/goparsers']);
    copyFileSync(MAIN, join(ctx.workDir, 'main.go'));
    for (const [module, version] of Object.entries(MODULES)) {
      await ctx.go(['mod', 'edit', `-require=${module}@${version}`]);
    }
    await ctx.go(['mod', 'tidy', '-e']);
    await ctx.go(['build', '-trimpath', '-ldflags', '-s -w', '-o', join(ctx.outDir, 'go-parsers'), '.']);
  },
};

/** One question to the oracle. `versions`: for `semver-range`, the versions to test against the range. */
export interface GoParserRequest {
  readonly mode:
    | 'semver-version'
    | 'semver-range'
    | 'reference'
    | 'yaml'
    | 'yaml-strings'
    | 'json-to-yaml'
    | 'request-uri'
    | 'json-encode'
    | 'fmt-json';
  readonly input: string;
  readonly versions?: readonly string[];
}

/** The Go libraries' answer: accepted with a value (canonical form, inclusions, JSON), or their error text. */
export type GoParserAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };

/**
 * Asks the Go libraries about every request at once (one process, one line each way), building the oracle from
 * the Go module proxy on first use.
 */
export async function askGoParsers(requests: readonly GoParserRequest[]): Promise<GoParserAnswer[]> {
  const built = await ensureComponents([goParsersRecipe]);
  const dir = built['go-parsers']?.dir;
  if (!dir) throw new Error('go-parsers was not built');
  const child = spawn(join(dir, 'go-parsers'), [], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
  child.stdin.end(requests.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const code = await exited;
  const lines = stdout.split('\n').filter((l) => l !== '');
  if (code !== 0 || lines.length !== requests.length) {
    throw new Error(
      `go-parsers exited ${code} after ${lines.length} of ${requests.length} answers: ${stderr}`,
    );
  }
  return lines.map((line) => {
    const answer = JSON.parse(line) as { ok?: boolean; value?: unknown; error?: string };
    return answer.ok ? { ok: true, value: answer.value } : { ok: false, error: answer.error ?? '' };
  });
}
