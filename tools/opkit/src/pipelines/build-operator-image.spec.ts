import { describe, expect, it } from 'vitest';
import { publicUrl } from './build-operator-image.js';

describe('publicUrl', () => {
  it('turns git remotes into https URLs without credentials', () => {
    expect(publicUrl('git@github.com:acme/operators.git')).toBe('https://github.com/acme/operators');
    expect(publicUrl('https://user:token@gitlab.example/acme/ops.git')).toBe(
      'https://gitlab.example/acme/ops',
    );
    expect(publicUrl('ssh://git@github.com:22/acme/operators.git')).toBe('https://github.com/acme/operators');
    expect(publicUrl('http://git.internal/acme/ops/')).toBe('http://git.internal/acme/ops');
  });

  it('gives nothing for local paths and shorthands', () => {
    expect(publicUrl('/srv/git/ops.git')).toBeUndefined();
    expect(publicUrl('file:///srv/git/ops.git')).toBeUndefined();
    expect(publicUrl('github:acme/operators')).toBeUndefined();
  });
});
