import { describe, expect, it } from 'vitest';
import { acceptanceOf, parseAcceptances } from './acceptance.js';
import { compiledRuleGlob, ruleMatchesGlob } from './rule-glob.js';

const accepts = (line: string, message: string): boolean =>
  acceptanceOf(parseAcceptances(line).acceptances, { rule: 'permission/escalation', message }) !== undefined;

describe('an acceptance naming a text', () => {
  const tls = 'permission/escalation (get on secrets named tls): serves with its certificate';

  it('accepts a finding whose message has the text as a whole phrase', () => {
    expect(accepts(tls, 'a 1 → 2: sa gains cluster-wide get on secrets named tls')).toBe(true);
    expect(accepts(tls, 'a 1 → 2: sa gains get on secrets named tls, which it held namespaced')).toBe(true);
    expect(accepts(tls, 'a 1 → 2: sa gains get on secrets named tls (and more)')).toBe(true);
    expect(accepts(tls, 'a 1 → 2: sa gains get on secrets named tls.')).toBe(true);
  });

  it('does not accept a finding where the text only begins a longer name', () => {
    expect(accepts(tls, 'a 1 → 2: sa gains cluster-wide get on secrets named tls-admin')).toBe(false);
    expect(accepts(tls, 'a 1 → 2: sa gains cluster-wide get on secrets named tls2')).toBe(false);
    expect(accepts(tls, 'a 1 → 2: sa gains cluster-wide get on secrets named tls.crt')).toBe(false);
    const crds =
      'permission/escalation (get on customresourcedefinitions.apiextensions.k8s.io): reads its CRD';
    expect(accepts(crds, 'sa gains get on customresourcedefinitions.apiextensions.k8s.io/status')).toBe(
      false,
    );
    expect(accepts(crds, 'sa gains get on customresourcedefinitions.apiextensions.k8s.io, which')).toBe(true);
  });

  it('finds the phrase at a later occurrence when an earlier one goes on', () => {
    expect(accepts(tls, 'get on secrets named tls-admin, get on secrets named tls')).toBe(true);
  });
});

describe('parseAcceptances', () => {
  it('gives no acceptance at all when one line is malformed', () => {
    expect(parseAcceptances('permission/*: fine\nnot an acceptance')).toEqual({
      acceptances: [],
      invalid: 'line "not an acceptance" is not "<rule glob> (<text>): <reason>"',
    });
  });

  it('refuses more than 200 lines and more than 64 KiB, and takes 200 lines', () => {
    const lines = (n: number) => Array.from({ length: n }, () => 'crd/*: reviewed').join('\n');
    expect(parseAcceptances(lines(200)).acceptances).toHaveLength(200);
    expect(parseAcceptances(lines(201))).toEqual({ acceptances: [], invalid: 'has more than 200 lines' });
    expect(parseAcceptances(`crd/*: ${'x'.repeat(64 * 1024)}`)).toEqual({
      acceptances: [],
      invalid: 'is larger than 64 KiB',
    });
  });
});

describe('rule globs', () => {
  it('are compiled once and still match as before', () => {
    expect(compiledRuleGlob('permission/*')).toBe(compiledRuleGlob('permission/*'));
    expect(ruleMatchesGlob('permission/*', 'permission/escalation')).toBe(true);
    expect(ruleMatchesGlob('*/escalation', 'crd/field-removed')).toBe(false);
  });
});
