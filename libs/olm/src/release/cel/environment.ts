import {
  type CelEnv,
  type CelList,
  CelScalar,
  type CelValue,
  celEnv,
  celFunc,
  celMethod,
  isCelList,
  listType,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { RE2JS } from '@bufbuild/re2';

const { BOOL, DYN, INT, STRING } = CelScalar;
const LIST_DYN = listType(DYN);
const LIST_STRING = listType(STRING);

/** Raised by a function this evaluator cannot answer as Kubernetes would: the rule is reported not evaluated. */
export class CelUnsupportedError extends Error {
  constructor(readonly what: string) {
    super(`uses ${what}`);
    this.name = 'CelUnsupportedError';
  }
}

type Comparable = bigint | number | string | boolean;

function comparable(list: CelList, fn: string): Comparable[] {
  const out: Comparable[] = [];
  for (const v of list) {
    if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') {
      out.push(v);
    } else {
      // Timestamps, durations and bytes are comparable in Kubernetes too; not here.
      throw new CelUnsupportedError(`${fn}() on a list of ${isCelList(v) ? 'lists' : 'non-scalar values'}`);
    }
  }
  return out;
}

const isNumber = (v: Comparable): boolean => typeof v === 'bigint' || typeof v === 'number';

/** CEL ordering: numbers across int and double, otherwise values of one type only. */
function compare(a: Comparable, b: Comparable, fn: string): number {
  if (typeof a !== typeof b && !(isNumber(a) && isNumber(b))) {
    throw new Error(`no such overload: ${fn}() on a list of mixed types`);
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function extreme(list: CelList, fn: 'min' | 'max'): CelValue {
  const items = comparable(list, fn);
  if (items.length === 0) throw new Error(`${fn}(list) argument must not be empty`);
  let best = items[0] as Comparable;
  for (const v of items.slice(1)) {
    const c = compare(v, best, fn);
    if ((fn === 'min' && c < 0) || (fn === 'max' && c > 0)) best = v;
  }
  return best;
}

function sum(list: CelList): CelValue {
  let total: bigint | number | undefined;
  for (const v of list) {
    if (typeof v === 'bigint' && (total === undefined || typeof total === 'bigint')) {
      total = (total ?? 0n) + v;
      if (total > 9223372036854775807n || total < -9223372036854775808n) throw new Error('integer overflow');
    } else if (typeof v === 'number' && (total === undefined || typeof total === 'number')) {
      total = (total ?? 0) + v;
    } else {
      throw new CelUnsupportedError('sum() on a list that is not of int or double');
    }
  }
  // An empty list sums to int zero, as the Kubernetes library types it without a checker's help.
  return total ?? 0n;
}

function same(a: CelValue, b: CelValue): boolean {
  if (typeof a === 'bigint' || typeof a === 'number') {
    return (
      (typeof b === 'bigint' || typeof b === 'number') && Number(a) === Number(b) && typeof a === typeof b
    );
  }
  if (typeof a === 'string' || typeof a === 'boolean' || a === null) return a === b;
  throw new CelUnsupportedError('indexOf() on a list of non-scalar values');
}

function indexOf(list: CelList, item: CelValue, last: boolean): bigint {
  const items = [...list];
  const order = last ? items.map((_, i) => items.length - 1 - i) : items.map((_, i) => i);
  for (const i of order) if (same(items[i] as CelValue, item)) return BigInt(i);
  return -1n;
}

/**
 * A Kubernetes (RE2) pattern as a JavaScript expression for finding matches: RE2 checks the syntax first (so a
 * pattern Kubernetes refuses is refused here), then the few RE2 spellings JavaScript lacks are translated; a
 * pattern that still does not translate is not evaluated rather than guessed at.
 */
function findingRegExp(pattern: string): RegExp {
  RE2JS.compile(pattern);
  let source = pattern;
  let flags = 'gu';
  const leading = /^\(\?([imsU]+)\)/.exec(source);
  if (leading) {
    const given = leading[1] as string;
    if (given.includes('U')) throw new CelUnsupportedError('a regular expression with the U flag');
    flags += given.replace(/U/g, '');
    source = source.slice(leading[0].length);
  }
  source = source.replace(/\\A/g, '^').replace(/\\z/g, '$(?![\\s\\S])');
  try {
    return new RegExp(source, flags);
  } catch {
    throw new CelUnsupportedError(`a regular expression JavaScript cannot run: ${pattern}`);
  }
}

function findAll(text: string, pattern: string, limit: bigint): string[] {
  const re = findingRegExp(pattern);
  const out: string[] = [];
  if (limit === 0n) return out;
  for (const m of text.matchAll(re)) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

/**
 * The Kubernetes libraries CRD rules use beyond standard CEL: its lists library (`isSorted`, `sum`, `min`,
 * `max`, `indexOf`, `lastIndexOf`) and regex library (`find`, `findAll`).
 */
const KUBERNETES_FUNCS = [
  celMethod('isSorted', LIST_DYN, [], BOOL, function (this: CelList) {
    const items = comparable(this, 'isSorted');
    for (let i = 1; i < items.length; i++) {
      if (compare(items[i - 1] as Comparable, items[i] as Comparable, 'isSorted') > 0) return false;
    }
    return true;
  }),
  celMethod('sum', LIST_DYN, [], DYN, function (this: CelList) {
    return sum(this);
  }),
  celMethod('min', LIST_DYN, [], DYN, function (this: CelList) {
    return extreme(this, 'min');
  }),
  celMethod('max', LIST_DYN, [], DYN, function (this: CelList) {
    return extreme(this, 'max');
  }),
  celMethod('indexOf', LIST_DYN, [DYN], INT, function (this: CelList, item: CelValue) {
    return indexOf(this, item, false);
  }),
  celMethod('lastIndexOf', LIST_DYN, [DYN], INT, function (this: CelList, item: CelValue) {
    return indexOf(this, item, true);
  }),
  celMethod('find', STRING, [STRING], STRING, function (this: string, pattern: string) {
    return findAll(this, pattern, 1n)[0] ?? '';
  }),
  celMethod('findAll', STRING, [STRING], LIST_STRING, function (this: string, pattern: string) {
    return findAll(this, pattern, -1n);
  }),
  celMethod(
    'findAll',
    STRING,
    [STRING, INT],
    LIST_STRING,
    function (this: string, pattern: string, n: bigint) {
      return findAll(this, pattern, n);
    },
  ),
];

/** Whether a list holds an element equal to the value, by CEL equality of scalars. */
function holds(list: CelList, value: CelValue): boolean {
  for (const item of list) if (same(item, value)) return true;
  return false;
}

/** The sets extension Kubernetes enables: lists compared as sets. */
const SETS_FUNCS = [
  celFunc('sets.contains', [LIST_DYN, LIST_DYN], BOOL, (list: CelList, sub: CelList) =>
    [...sub].every((v) => holds(list, v)),
  ),
  celFunc(
    'sets.equivalent',
    [LIST_DYN, LIST_DYN],
    BOOL,
    (a: CelList, b: CelList) => [...a].every((v) => holds(b, v)) && [...b].every((v) => holds(a, v)),
  ),
  celFunc('sets.intersects', [LIST_DYN, LIST_DYN], BOOL, (a: CelList, b: CelList) =>
    [...a].some((v) => holds(b, v)),
  ),
];

/**
 * Every function a rule may call here: standard CEL (operators, macros, conversions, string and time methods),
 * the strings and sets extensions as Kubernetes enables them, and the Kubernetes lists and regex libraries. A rule calling
 * anything else (`url`, `quantity`, `ip`, `cidr`, `format`, `authorizer`, `semver`, optionals…) is not evaluated.
 */
export const SUPPORTED_FUNCTIONS: ReadonlySet<string> = new Set([
  // Operators, as the parser names them.
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '-_',
  '!_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_&&_',
  '_||_',
  '_?_:_',
  '_[_]',
  '@in',
  '@not_strictly_false',
  'in',
  // Standard functions and methods.
  'size',
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'type',
  'dyn',
  'duration',
  'timestamp',
  'matches',
  'contains',
  'startsWith',
  'endsWith',
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
  // Strings extension.
  'charAt',
  'indexOf',
  'lastIndexOf',
  'lowerAscii',
  'upperAscii',
  'replace',
  'split',
  'substring',
  'trim',
  'join',
  'format',
  'strings.quote',
  // Kubernetes lists and regex libraries, and the sets extension.
  'isSorted',
  'sum',
  'min',
  'max',
  'find',
  'findAll',
  'sets.contains',
  'sets.equivalent',
  'sets.intersects',
]);

/** The Kubernetes CEL environment of a CRD rule: `self` and `oldSelf`, typed by the values bound to them. */
export function kubernetesCelEnv(): CelEnv {
  return celEnv({
    variables: { self: DYN, oldSelf: DYN },
    funcs: [...strings, ...KUBERNETES_FUNCS, ...SETS_FUNCS],
  });
}
