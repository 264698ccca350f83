import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { opkitScript } from './opkit-command.js';

describe('opkitScript', () => {
  it('is the script the @opkit/cli package installs as `opkit`', () => {
    const script = opkitScript();
    const cliDir = dirname(createRequire(import.meta.url).resolve('@opkit/cli/package.json'));
    expect(relative(cliDir, script)).toBe('bin/opkit.js');
    expect(readFileSync(script, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});
