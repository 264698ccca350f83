import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isInstalled,
  nearestWorkspace,
  WorkspaceFileError,
  workspaceFile,
  workspaceRoot,
} from './released-data.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'released-data-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the workspace root', () => {
  it('is this repository when the kit runs from it', () => {
    expect(isInstalled(import.meta.dirname)).toBe(false);
    expect(workspaceRoot).toBe(join(import.meta.dirname, '..', '..', '..'));
  });

  it('of an installed kit is the nearest directory of the current one with a package-lock.json or nx.json', () => {
    const kit = join(dir, 'node_modules', '@opkit', 'test-cluster', 'dist');
    mkdirSync(kit, { recursive: true });
    expect(isInstalled(kit)).toBe(true);
    writeFileSync(join(dir, 'package-lock.json'), '{}');
    const nested = join(dir, 'apps', 'op', 'src');
    mkdirSync(nested, { recursive: true });
    expect(nearestWorkspace(nested)).toBe(dir);
    writeFileSync(join(dir, 'apps', 'nx.json'), '{}');
    expect(nearestWorkspace(nested)).toBe(join(dir, 'apps'));
  });

  it('names a missing workspace file', () => {
    expect(() => workspaceFile(dir, 'nx.json')).toThrow(WorkspaceFileError);
    expect(() => workspaceFile(dir, 'nx.json')).toThrow(`${join(dir, 'nx.json')} not found`);
  });
});
