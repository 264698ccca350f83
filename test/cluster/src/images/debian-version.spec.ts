import { describe, expect, it } from 'vitest';
import { releaseVersion, upstreamVersion, versionPrefix } from './debian-version.js';

describe('Debian versions', () => {
  it('drops epoch and Debian revision', () => {
    expect(upstreamVersion('5:7.0.15-1~deb12u10')).toBe('7.0.15');
    expect(upstreamVersion('1.6.18-1+deb12u1')).toBe('1.6.18');
    expect(upstreamVersion('1:1.35.0-4+deb12u1+b1')).toBe('1.35.0');
    expect(upstreamVersion('2.1.12-stable-8+deb12u1')).toBe('2.1.12-stable');
    expect(upstreamVersion('1.0')).toBe('1.0');
  });

  it('keeps only the leading dotted numbers for tags', () => {
    expect(releaseVersion('1.2.3+dfsg')).toBe('1.2.3');
    expect(releaseVersion('2.1.12-stable')).toBe('2.1.12');
    expect(releaseVersion('7.0.15')).toBe('7.0.15');
    expect(() => releaseVersion('stable')).toThrow(/does not start with a number/);
  });

  it('shortens versions to minor and major tags', () => {
    expect(versionPrefix('1.6.18', 2)).toBe('1.6');
    expect(versionPrefix('24.21.0', 1)).toBe('24');
    expect(() => versionPrefix('24', 2)).toThrow(/2 leading numeric components/);
  });
});
