import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ARCHITECTURES, elfMachine, hostArchitecture, IMAGE_ARCHITECTURES } from './platforms.js';

describe('platforms', () => {
  it('builds the multi-platform images for amd64 and arm64', () => {
    expect(IMAGE_ARCHITECTURES).toEqual(['amd64', 'arm64']);
  });

  it("maps Node.js's architecture names to the images'", () => {
    expect(hostArchitecture('x64')).toBe('amd64');
    expect(hostArchitecture('arm64')).toBe('arm64');
    expect(() => hostArchitecture('riscv64')).toThrow(/cannot be built on a riscv64 machine/);
  });

  it("reads the machine of an ELF executable: the running Node.js is this machine's", async () => {
    const file = await open(process.execPath, 'r');
    const header = Buffer.alloc(20);
    await file.read(header, 0, 20, 0);
    await file.close();
    expect(elfMachine(header)).toBe(ARCHITECTURES[hostArchitecture()].elfMachine);
    expect(elfMachine(Buffer.from('#!/bin/sh\necho not an executable\n'))).toBeUndefined();
  });
});
