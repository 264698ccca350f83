import { describe, expect, it } from 'vitest';
import { parseAptPolicy, suiteFromOsRelease } from './host-apt.js';

describe('host apt', () => {
  it('reads the codename from os-release', () => {
    const text = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n';
    expect(suiteFromOsRelease(text)).toBe('bookworm');
    expect(suiteFromOsRelease('VERSION_CODENAME="trixie"\n')).toBe('trixie');
    expect(suiteFromOsRelease('ID=alpine\n')).toBeUndefined();
  });

  it('parses candidate versions from apt-cache policy', () => {
    const output = [
      'memcached:',
      '  Installed: (none)',
      '  Candidate: 1.6.18-1+deb12u1',
      '  Version table:',
      '     1.6.18-1+deb12u1 500',
      '        500 http://mirror.example/debian-security bookworm-security/main amd64 Packages',
      'libstdc++6:',
      '  Installed: 12.2.0-14+deb12u1',
      '  Candidate: 12.2.0-14+deb12u1',
      'gone:',
      '  Installed: (none)',
      '  Candidate: (none)',
      '',
    ].join('\n');
    expect(parseAptPolicy(output)).toEqual({
      memcached: '1.6.18-1+deb12u1',
      'libstdc++6': '12.2.0-14+deb12u1',
    });
  });
});
