import type { CrdSchema, ValidationRule } from '../../src/release/cel/index.js';

/**
 * One field of the agreement CRD with its rules, and the values to try on it: `create` values are created as
 * they are; `update` pairs are created as `from`, then updated to `to`.
 */
export interface CelCase {
  readonly name: string;
  readonly schema: CrdSchema;
  readonly create: readonly unknown[];
  readonly update?: readonly { readonly from: unknown; readonly to: unknown }[];
}

const rule = (text: string, more: Omit<ValidationRule, 'rule'> = {}): ValidationRule => ({
  rule: text,
  ...more,
});
const withRules = (schema: CrdSchema, ...rules: ValidationRule[]): CrdSchema => ({
  ...schema,
  'x-kubernetes-validations': rules,
});
const INTEGER: CrdSchema = { type: 'integer' };
const NUMBER: CrdSchema = { type: 'number' };
// Bounded, as the API server refuses rules whose estimated cost over unbounded values is too high.
const STRING: CrdSchema = { type: 'string', maxLength: 32 };
const strings: CrdSchema = { type: 'array', maxItems: 8, items: STRING };
const integers: CrdSchema = { type: 'array', maxItems: 8, items: INTEGER };

export const CEL_CASES: readonly CelCase[] = [
  {
    name: 'minimum',
    schema: withRules(INTEGER, rule('self >= 1', { message: 'at least one' })),
    create: [0, 2],
  },
  // integer division: 3 / 2 is 1 only as int.
  { name: 'intDivision', schema: withRules(INTEGER, rule('self / 2 == 1')), create: [3, 4] },
  // a number written without a fraction is still a double.
  { name: 'doubleTyping', schema: withRules(NUMBER, rule('self < 1.5')), create: [1, 1.25, 2] },
  {
    name: 'intOrString',
    schema: withRules(
      { 'x-kubernetes-int-or-string': true },
      rule("type(self) == int ? self > 5 : self.endsWith('%')"),
    ),
    create: [10, 3, '50%', '5'],
  },
  {
    name: 'sortedTags',
    schema: withRules(strings, rule('self.isSorted()')),
    create: [
      ['a', 'b'],
      ['b', 'a'],
    ],
  },
  {
    name: 'budget',
    schema: withRules(
      integers,
      rule('self.sum() <= 10', {
        messageExpression: "self.size() > 1 ? 'sum over 10 across items' : 'item over 10'",
      }),
    ),
    create: [[1, 2], [5, 6], [11]],
  },
  {
    name: 'bounds',
    schema: withRules(integers, rule('self.min() >= 0 && self.max() < 100')),
    create: [
      [0, 99],
      [-1, 5],
      [1, 100],
    ],
  },
  {
    name: 'noReserved',
    schema: withRules(strings, rule("self.indexOf('reserved') == -1")),
    create: [['a'], ['a', 'reserved']],
  },
  {
    name: 'lastOne',
    schema: withRules(integers, rule('self.lastIndexOf(1) < 2')),
    create: [
      [1, 1, 2],
      [2, 2, 1],
    ],
  },
  {
    name: 'shortItems',
    schema: withRules(strings, rule('self.all(x, x.size() < 5)')),
    create: [['abc'], ['abcdef']],
  },
  {
    name: 'oneMain',
    schema: withRules(strings, rule("self.exists_one(x, x == 'main')")),
    create: [
      ['main', 'dev'],
      ['main', 'main'],
    ],
  },
  {
    name: 'smallOnly',
    schema: withRules(integers, rule('self.filter(x, x > 5).size() == 0')),
    create: [[1, 5], [6]],
  },
  {
    name: 'doubled',
    schema: withRules(integers, rule('self.map(x, x * 2).sum() < 20')),
    create: [
      [1, 2],
      [5, 6],
    ],
  },
  {
    name: 'lowercase',
    schema: withRules(STRING, rule("self.matches('^[a-z]+$')", { message: 'must be lowercase letters' })),
    create: ['abc', 'aBc'],
  },
  {
    name: 'digits',
    schema: withRules(STRING, rule("self.find('[0-9]+') == '42'")),
    create: ['ab42cd7', 'ab7cd42'],
  },
  {
    name: 'letters',
    schema: withRules(STRING, rule("self.findAll('[a-z]').size() == 3")),
    create: ['a1b2c', 'ab'],
  },
  {
    name: 'csv',
    schema: withRules(
      STRING,
      rule("self.split(',').size() <= 2 && self.trim() == self && self.lowerAscii() == self"),
    ),
    create: ['a,b', 'a,b,c', ' a', 'A'],
  },
  {
    name: 'prefix',
    schema: withRules(STRING, rule("self.substring(0, 2) == 'ab' && self.charAt(2) != '-'")),
    create: ['abc', 'xbc', 'ab-'],
  },
  {
    name: 'oneOf',
    schema: withRules(
      { type: 'object', properties: { a: STRING, b: STRING } },
      rule('has(self.a) != has(self.b)', { message: 'exactly one of a and b' }),
    ),
    create: [{ a: 'x' }, {}, { a: 'x', b: 'y' }],
  },
  {
    name: 'range',
    schema: withRules(
      { type: 'object', properties: { min: INTEGER, max: INTEGER } },
      rule('self.min <= self.max', {
        message: 'min above max',
        fieldPath: '.min',
        reason: 'FieldValueForbidden',
      }),
    ),
    create: [
      { min: 1, max: 2 },
      { min: 3, max: 2 },
    ],
  },
  {
    name: 'required',
    schema: withRules(
      { type: 'object', properties: { a: STRING } },
      rule('has(self.a)', { message: 'a is required', reason: 'FieldValueRequired', fieldPath: '.a' }),
    ),
    create: [{ a: 'x' }, {}],
  },
  {
    name: 'unique',
    schema: withRules(
      strings,
      rule('self.size() < 2 || self[0] != self[1]', { message: 'repeats', reason: 'FieldValueDuplicate' }),
    ),
    create: [
      ['a', 'b'],
      ['a', 'a'],
    ],
  },
  {
    name: 'missingKey',
    schema: withRules({ type: 'object', properties: { a: STRING } }, rule("self.a == 'x'")),
    create: [{ a: 'x' }, {}],
  },
  {
    name: 'sets',
    schema: withRules(
      strings,
      rule("sets.contains(self, ['a']) && !sets.intersects(self, ['x']) && !sets.equivalent(self, ['a'])"),
    ),
    create: [['a', 'b'], ['b'], ['a', 'x'], ['a', 'a']],
  },
  { name: 'quoted', schema: withRules(STRING, rule('strings.quote(self) == \'"a"\'')), create: ['a', 'b'] },
  { name: 'third', schema: withRules(strings, rule("self[2] == 'c'")), create: [['a', 'b', 'c'], ['a']] },
  { name: 'divisor', schema: withRules(INTEGER, rule('10 / self == 5')), create: [2, 0] },
  { name: 'huge', schema: withRules(INTEGER, rule('self * 4611686018427387904 != 0')), create: [4, 0] },
  {
    name: 'recent',
    schema: withRules(
      { type: 'string', format: 'date-time' },
      rule("self > timestamp('2020-01-01T00:00:00Z')"),
    ),
    create: ['2021-05-01T10:00:00Z', '2019-05-01T10:00:00Z'],
  },
  {
    name: 'day',
    schema: withRules({ type: 'string', format: 'date' }, rule("self > timestamp('2020-01-01T00:00:00Z')")),
    create: ['2021-05-01', '2019-05-01'],
  },
  {
    name: 'timeout',
    schema: withRules({ type: 'string', format: 'duration', maxLength: 16 }, rule("self <= duration('1h')")),
    create: ['30m', '1h30m', '1.5s'],
  },
  {
    name: 'token',
    schema: withRules({ type: 'string', format: 'byte', maxLength: 16 }, rule('size(self) == 3')),
    create: ['YWJj', 'YWJjZA=='],
  },
  {
    name: 'labels',
    schema: withRules(
      {
        type: 'object',
        maxProperties: 8,
        additionalProperties: withRules(STRING, rule('self.size() > 0', { message: 'empty label' })),
      },
      rule("self.all(k, k.startsWith('x-'))", { message: 'keys start with x-' }),
    ),
    create: [{ 'x-a': 'v' }, { b: 'v' }, { 'x-a': '' }],
  },
  {
    name: 'ports',
    schema: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      maxItems: 8,
      items: withRules(
        { type: 'object', required: ['name'], properties: { name: STRING, port: INTEGER } },
        rule('self.port > 0'),
        rule('self.port == oldSelf.port', { message: 'port is immutable' }),
      ),
    },
    create: [[{ name: 'http', port: 80 }], [{ name: 'http', port: 0 }]],
    update: [
      {
        from: [{ name: 'http', port: 80 }],
        to: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      },
      { from: [{ name: 'http', port: 80 }], to: [{ name: 'http', port: 81 }] },
    ],
  },
  {
    name: 'size',
    schema: withRules(
      INTEGER,
      rule('self >= oldSelf', {
        messageExpression: "oldSelf - self > 1 ? 'cannot shrink by more than one' : 'cannot shrink'",
      }),
    ),
    create: [1],
    update: [
      { from: 2, to: 3 },
      { from: 3, to: 2 },
      { from: 5, to: 2 },
    ],
  },
  {
    name: 'immutable',
    schema: withRules(
      STRING,
      rule('self == oldSelf', {
        message: 'is immutable',
        messageExpression: "'cannot change ' + oldSelf + ' to ' + self",
      }),
    ),
    create: ['a'],
    update: [
      { from: 'a', to: 'a' },
      { from: 'a', to: 'b' },
    ],
  },
  {
    // A rule without oldSelf runs on updates too.
    name: 'versioned',
    schema: withRules(STRING, rule("self.startsWith('v')")),
    create: ['v1'],
    update: [{ from: 'v1', to: 'x1' }],
  },
  // A null where the schema is not nullable is dropped before anything is checked, so a rule on the field does
  // not run and a required field goes missing.
  {
    name: 'nullField',
    schema: { type: 'object', properties: { limit: withRules(INTEGER, rule('self > 0')) } },
    create: [{ limit: null }, { limit: 0 }],
  },
  {
    name: 'nullRequired',
    schema: { type: 'object', required: ['limit'], properties: { limit: INTEGER } },
    create: [{ limit: null }, { limit: 2 }],
  },
  // Absent and null fields get their default before the rules run.
  {
    name: 'defaulted',
    schema: withRules(
      { type: 'object', properties: { limit: { ...INTEGER, default: 1 }, floor: INTEGER } },
      rule('has(self.limit) && self.limit >= (has(self.floor) ? self.floor : 0)', {
        message: 'limit below floor',
      }),
    ),
    create: [{}, { limit: null }, { floor: 2 }, { limit: 3, floor: 2 }],
  },
];
