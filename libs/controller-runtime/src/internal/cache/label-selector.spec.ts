import { describe, expect, it } from 'vitest';
import { InvalidSelectorError, parseLabelSelector, selectorFromLabels } from './label-selector.js';

/** Which of the label sets the selector matches, by name. */
function matching(selector: string, sets: Record<string, Record<string, string> | undefined>): string[] {
  const parsed = parseLabelSelector(selector);
  return Object.entries(sets)
    .filter(([, labels]) => parsed.matches(labels))
    .map(([name]) => name);
}

const SETS = {
  web: { app: 'web', tier: 'front' },
  api: { app: 'api', tier: 'back' },
  db: { app: 'db' },
  bare: {},
  none: undefined,
};

describe('parseLabelSelector', () => {
  it('GIVEN an empty selector THEN it matches everything, even objects without labels', () => {
    expect(matching('', SETS)).toEqual(['web', 'api', 'db', 'bare', 'none']);
  });

  it('GIVEN equality with =, == or spaces around the operator THEN only that value matches', () => {
    for (const selector of ['app=web', 'app==web', ' app = web ']) {
      expect(matching(selector, SETS)).toEqual(['web']);
    }
  });

  it('GIVEN inequality THEN objects with another value or without the label match', () => {
    expect(matching('app!=web', SETS)).toEqual(['api', 'db', 'bare', 'none']);
  });

  it('GIVEN an empty value THEN only a label with the empty value matches', () => {
    expect(matching('app=', { empty: { app: '' }, web: { app: 'web' }, bare: {} })).toEqual(['empty']);
  });

  it('GIVEN a prefixed key THEN it matches that key', () => {
    const sets = { yes: { 'app.kubernetes.io/name': 'shop' }, no: { name: 'shop' } };
    expect(matching('app.kubernetes.io/name=shop', sets)).toEqual(['yes']);
  });

  it('GIVEN "in" THEN objects whose label has one of the values match', () => {
    expect(matching('app in (web, db)', SETS)).toEqual(['web', 'db']);
    expect(matching('app in (web)', SETS)).toEqual(['web']);
  });

  it('GIVEN "notin" THEN objects whose label has none of the values, or no such label, match', () => {
    expect(matching('app notin (web,db)', SETS)).toEqual(['api', 'bare', 'none']);
  });

  it('GIVEN a bare key THEN objects with the label (any value) match', () => {
    expect(matching('tier', SETS)).toEqual(['web', 'api']);
  });

  it('GIVEN "!key" THEN objects without the label match', () => {
    expect(matching('!tier', SETS)).toEqual(['db', 'bare', 'none']);
    expect(matching('! tier', SETS)).toEqual(['db', 'bare', 'none']);
  });

  it('GIVEN requirements joined by commas, with commas inside parentheses THEN all must hold', () => {
    expect(matching('app in (web,api,db),tier', SETS)).toEqual(['web', 'api']);
    expect(matching('app notin (web, api), !tier', SETS)).toEqual(['db', 'bare', 'none']);
    expect(matching('tier in (front,back),app!=api,app in (web,api)', SETS)).toEqual(['web']);
  });

  it('GIVEN a parsed selector THEN it keeps its text', () => {
    expect(parseLabelSelector('app in (a,b),!c').text).toBe('app in (a,b),!c');
  });

  it.each([
    ['a value with a space', 'app=we b'],
    ['a second "="', 'app=web=x'],
    ['an unknown operator', 'app ~= web'],
    ['"in" without parentheses', 'app in web'],
    ['an unclosed parenthesis', 'app in (web,db'],
    ['an empty requirement', 'app=web,,tier'],
    ['a leading comma', ',app=web'],
    ['"!" with a value', '!app=web'],
  ])('GIVEN %s THEN it throws InvalidSelectorError naming the selector', (_, selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(InvalidSelectorError);
    expect(() => parseLabelSelector(selector)).toThrow(`invalid label selector "${selector}"`);
  });

  it('GIVEN an invalid selector THEN the error carries the runtime code and the part that failed', () => {
    const error = (() => {
      try {
        parseLabelSelector('app=web,tier>3');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidSelectorError);
    expect((error as InvalidSelectorError).code).toBe('RUNTIME_INVALID_SELECTOR');
    expect((error as InvalidSelectorError).message).toBe(
      'invalid label selector "app=web,tier>3": cannot parse "tier>3"',
    );
  });
});

describe('selectorFromLabels', () => {
  it('GIVEN matchLabels THEN it builds an equality selector that matches exactly those labels', () => {
    const text = selectorFromLabels({ app: 'web', tier: 'front' });
    expect(text).toBe('app=web,tier=front');
    expect(matching(text, SETS)).toEqual(['web']);
  });

  it('GIVEN no labels THEN it builds the empty selector', () => {
    expect(selectorFromLabels({})).toBe('');
  });
});
