import { describe, expect, it } from 'vitest';
import type { InstallMode, InstallModeType } from '../manifest/cluster-service-version.js';
import { operatorGroupTarget, parseInstallMode, targetsMatch } from './install-mode.js';

function modes(...supported: InstallModeType[]): InstallMode[] {
  return (['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'] as const).map((type) => ({
    type,
    supported: supported.includes(type),
  }));
}

describe('parseInstallMode', () => {
  it('reads the three modes operator-sdk takes', () => {
    expect(parseInstallMode('AllNamespaces')).toEqual({ type: 'AllNamespaces' });
    expect(parseInstallMode('OwnNamespace')).toEqual({ type: 'OwnNamespace' });
    expect(parseInstallMode('SingleNamespace=team-a')).toEqual({
      type: 'SingleNamespace',
      namespace: 'team-a',
    });
  });

  it('refuses anything else with the accepted forms', () => {
    expect(() => parseInstallMode('MultiNamespace=a,b')).toThrow(
      'install mode "MultiNamespace=a,b": expected AllNamespaces, OwnNamespace or SingleNamespace=<namespace>',
    );
    expect(() => parseInstallMode('SingleNamespace')).toThrow('give one namespace');
    expect(() => parseInstallMode('SingleNamespace=Team_A')).toThrow('give one namespace');
    expect(() => parseInstallMode('OwnNamespace=x')).toThrow('OwnNamespace takes no namespace');
  });
});

describe('operatorGroupTarget', () => {
  it('defaults to AllNamespaces, else OwnNamespace, as operator-sdk does', () => {
    expect(operatorGroupTarget(modes('OwnNamespace', 'AllNamespaces'), 'ops')).toEqual({
      mode: 'AllNamespaces',
      targetNamespaces: [],
    });
    expect(operatorGroupTarget(modes('OwnNamespace', 'SingleNamespace'), 'ops')).toEqual({
      mode: 'OwnNamespace',
      targetNamespaces: ['ops'],
    });
    expect(() => operatorGroupTarget(modes('SingleNamespace'), 'ops')).toThrow(
      'the CSV supports neither AllNamespaces nor OwnNamespace (supported: SingleNamespace)',
    );
  });

  it('targets the namespace a requested mode names, when the CSV supports the mode', () => {
    expect(
      operatorGroupTarget(modes('SingleNamespace'), 'ops', { type: 'SingleNamespace', namespace: 'apps' }),
    ).toEqual({ mode: 'SingleNamespace', targetNamespaces: ['apps'] });
    expect(() => operatorGroupTarget(modes('AllNamespaces'), 'ops', { type: 'OwnNamespace' })).toThrow(
      'the CSV does not support install mode OwnNamespace (supported: AllNamespaces)',
    );
    // Watching only its own namespace is OwnNamespace, whatever it is called.
    expect(() =>
      operatorGroupTarget(modes('SingleNamespace'), 'ops', { type: 'SingleNamespace', namespace: 'ops' }),
    ).toThrow(
      'does not support install mode OwnNamespace (SingleNamespace=ops is the install namespace itself)',
    );
  });

  it('tells whether an existing OperatorGroup serves the mode', () => {
    const all = { mode: 'AllNamespaces', targetNamespaces: [] } as const;
    const own = { mode: 'OwnNamespace', targetNamespaces: ['ops'] } as const;
    expect(targetsMatch(undefined, all)).toBe(true);
    expect(targetsMatch([''], all)).toBe(true);
    expect(targetsMatch(['ops'], all)).toBe(false);
    expect(targetsMatch(['ops'], own)).toBe(true);
    expect(targetsMatch(['apps'], own)).toBe(false);
  });
});
