import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleOperator, escapeNonAscii } from './operator-bundle.js';

// An operator's image runs the operator only: what its project generates at build time (@opkit/controller-tools)
// stays out of the bundle, though src/api/index.ts lists each kind's CRD beside the webhook setup it runs.

const require = createRequire(import.meta.url);

describe.each(['@opkit/memcached-operator', '@opkit/redis-operator'])('the image bundle of %s', (name) => {
  const operatorDir = dirname(require.resolve(`${name}/package.json`));
  const bundled = bundleOperator({ operatorDir, entry: join(operatorDir, 'src', 'main.ts') });

  it('holds no build-time code', async () => {
    const { inputs } = await bundled;
    expect(inputs).toContain('../../libs/controller-runtime/src/manager/manager.ts');
    expect(inputs.filter((input) => input.includes('libs/controller-tools/'))).toEqual([]);
  }, 60_000);

  it('is ASCII, which Node keeps in memory at one byte a character (UTF-16 otherwise)', async () => {
    const { code } = await bundled;
    const first = code.findIndex((byte) => byte > 0x7f);
    const context = new TextDecoder().decode(code.subarray(Math.max(0, first - 60), first + 20));
    expect(first, `non-ASCII at byte ${first}: …${context}…`).toBe(-1);
    // Names and lines survive: stack traces name the real functions and lines.
    const text = new TextDecoder().decode(code);
    expect(text).toContain('function runOperatorMain(');
    expect(text.split('\n').length).toBeGreaterThan(10_000);
  }, 60_000);
});

describe('escapeNonAscii', () => {
  it('writes each non-ASCII character of a comment as its code point, and leaves ASCII alone', () => {
    const source = '/** a \u2014 b \u2192 c \u{1f600} */\nconst x = "\\u2014";\n';
    const escaped = new TextDecoder().decode(escapeNonAscii(source));
    expect(escaped).toBe('/** a \\u{2014} b \\u{2192} c \\u{1f600} */\nconst x = "\\u2014";\n');
  });
});
