import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runningNodeBinary } from './node-binary.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-binary-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the Node.js running the kit as the node image binary', () => {
  it('is taken when it is an ELF executable the minimum allows', async () => {
    expect(await runningNodeBinary(process.execPath, [20, 0, 0])).toEqual({
      path: expect.stringMatching(/node/),
      version: process.versions.node,
    });
  });

  it('is refused, saying why, when older than the minimum or not an executable', async () => {
    expect(await runningNodeBinary(process.execPath, [99, 0, 0])).toBe(
      `the Node.js running the kit (${realpathSync(process.execPath)}) is ${process.versions.node}`,
    );
    const script = join(dir, 'node');
    writeFileSync(script, '#!/bin/sh\n', { mode: 0o755 });
    expect(await runningNodeBinary(script, [20, 0, 0])).toBe(`${script} is not an ELF executable`);
  });
});
