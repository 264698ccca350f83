import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pidAlive } from '../toolchain/cache.js';
import { NpmRegistryError, publishablePackages, reportedPort, startVerdaccio } from './npm-registry.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'npm-registry-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for verdaccio-server.mjs: writes its pid, then runs `body`. */
function fakeServer(body: string): string {
  const file = join(dir, 'server.mjs');
  writeFileSync(
    file,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(dir, 'pid'))}, String(process.pid));\n${body}\n`,
  );
  return file;
}

describe('startVerdaccio', () => {
  it('kills the child before it rejects a message without a port', async () => {
    const server = fakeServer('process.send({ listening: true }); setInterval(() => {}, 1000);');
    await expect(startVerdaccio(join(dir, 'config.yaml'), join(dir, 'log'), server)).rejects.toThrow(
      NpmRegistryError,
    );
    expect(pidAlive(Number(readFileSync(join(dir, 'pid'), 'utf8')))).toBe(false);
  });

  it('drops output that arrives after its log directory is gone, without throwing', async () => {
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    const server = fakeServer(
      "process.send({ port: 4873 }); setInterval(() => process.stdout.write('line\\n'), 20);",
    );
    const { child } = await startVerdaccio(join(dir, 'config.yaml'), join(logs, 'verdaccio.log'), server);
    try {
      rmSync(logs, { recursive: true, force: true });
      // An uncaught ENOENT from the stream listener would fail the run.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('reportedPort', () => {
  it('takes an integer port and nothing else', () => {
    expect(reportedPort({ port: 4873 })).toBe(4873);
    for (const message of [null, 'x', {}, { port: '4873' }, { port: 0 }, { port: 70_000 }, { port: 1.5 }]) {
      expect(reportedPort(message)).toBeUndefined();
    }
  });
});

describe('publishablePackages', () => {
  it('refuses a malformed package.json, naming the file', () => {
    writeFileSync(join(dir, 'nx.json'), JSON.stringify({ release: { projects: ['a'] } }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ workspaces: ['libs/*'] }));
    mkdirSync(join(dir, 'libs', 'a'), { recursive: true });
    const manifest = join(dir, 'libs', 'a', 'package.json');
    writeFileSync(manifest, '{ "name": "a",');
    expect(() => publishablePackages(dir)).toThrow(`${manifest}: not JSON`);
    writeFileSync(manifest, JSON.stringify({ name: 'a' }));
    expect(() => publishablePackages(dir)).toThrow(`${manifest}: "version" is not a string`);
  });
});
