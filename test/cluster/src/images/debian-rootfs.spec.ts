import { describe, expect, it } from 'vitest';
import { mmdebstrapArguments, PATH_EXCLUDES } from './debian-rootfs.js';

describe('mmdebstrapArguments', () => {
  const args = mmdebstrapArguments('/build/root', {
    packages: ['redis-server', 'redis-tools'],
    suite: 'bookworm',
    sources: ['/etc/apt/sources.list.d/debian.sources'],
    pathExcludes: ['/usr/lib/*/gconv/*'],
  });

  it('extracts the packages without running maintainer scripts and keeps the .debs for their versions', () => {
    expect(args).toContain('--variant=extract');
    expect(args).toContain('--include=redis-server,redis-tools');
    expect(args).toContain('--skip=cleanup/apt/cache');
    expect(args.slice(-3)).toEqual(['bookworm', '/build/root', '/etc/apt/sources.list.d/debian.sources']);
  });

  it('leaves out documentation and the extra paths, keeping copyright files', () => {
    for (const path of PATH_EXCLUDES) expect(args).toContain(`--dpkgopt=path-exclude=${path}`);
    expect(PATH_EXCLUDES).toEqual(
      expect.arrayContaining(['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/locale/*']),
    );
    expect(args).toContain('--dpkgopt=path-exclude=/usr/lib/*/gconv/*');
    expect(args).toContain('--dpkgopt=path-include=/usr/share/doc/*/copyright');
  });

  it('fetches the packages of the architecture asked for, else of the machine', () => {
    const arm64 = mmdebstrapArguments('/r', {
      packages: ['memcached'],
      suite: 'bookworm',
      sources: [],
      architecture: 'arm64',
    });
    expect(arm64).toContain('--architectures=arm64');
    expect(args.some((arg) => arg.startsWith('--architectures'))).toBe(false);
  });

  it('needs packages', () => {
    expect(() => mmdebstrapArguments('/r', { packages: [], suite: 'bookworm', sources: [] })).toThrow();
  });
});
