import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReferenceInvalidError } from './errors.js';
import { formatReference, parseReference } from './reference.js';
import {
  isPlainValidReference,
  normalizedReferenceProblem,
  normalizedReferenceProblemByGrammar,
  splitDockerDomain,
} from './reference-grammar.js';

// A fixed seed keeps `npm test` reproducible; FUZZ_RUNS=100000 searches longer on demand.
const params = { seed: 20261126, numRuns: Number(process.env.FUZZ_RUNS ?? 300) };
// A long search is unbounded in time; the default runs stay within vitest's usual timeout.
const long = process.env.FUZZ_RUNS === undefined ? {} : { timeout: 0 };

const component = fc.stringMatching(/^[a-z0-9]{1,6}(?:(?:\.|_|__|-{1,2})[a-z0-9]{1,6}){0,2}$/);
const host = fc.oneof(
  fc.constant('localhost'),
  fc.stringMatching(/^[a-z0-9]{1,8}\.[a-z]{2,4}$/),
  fc
    .tuple(fc.constantFrom('127.0.0.1', 'localhost', 'registry.test'), fc.integer({ min: 1, max: 65535 }))
    .map(([h, p]) => `${h}:${p}`),
);
const reference = fc
  .record(
    {
      registry: host,
      path: fc.array(component, { minLength: 1, maxLength: 3 }),
      tag: fc.stringMatching(/^\w[\w.-]{0,20}$/),
      digest: fc.stringMatching(/^[a-f0-9]{64}$/).map((h) => `sha256:${h}`),
    },
    { requiredKeys: ['path'] },
  )
  // As Docker: without a registry, a first component with a `.` (or `localhost`) would be read as the registry.
  .filter(
    ({ registry, path }) => registry !== undefined || (!path[0]!.includes('.') && path[0] !== 'localhost'),
  )
  .map(({ registry, path, tag, digest }) =>
    [
      registry === undefined ? '' : `${registry}/`,
      path.join('/'),
      tag === undefined ? '' : `:${tag}`,
      digest === undefined ? '' : `@${digest}`,
    ].join(''),
  );

/** Text near the reference grammar: separators, upper case, spaces and non-ASCII, so every branch is reached. */
const referenceish = fc.string({
  unit: fc.constantFrom(...'ab09.-_:/@ A[]:\u00e9\u0000sha256'.split('')),
  maxLength: 40,
});

/**
 * Text shaped like plain references, with their edges: separators doubled, tripled or at the ends, ports, hosts,
 * upper case, digests, 64 hex digits, names and tags around their length limits.
 */
const plainish = fc.oneof(
  fc
    .array(
      fc.constantFrom(
        'a',
        'b1',
        'Z',
        '0',
        '.',
        '_',
        '__',
        '___',
        '-',
        '--',
        '/',
        ':',
        '5000',
        'localhost',
        'x.io',
        '@',
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join('')),
  fc.stringMatching(/^[a-f0-9]{64}$/),
  fc
    .tuple(
      fc.integer({ min: 180, max: 260 }),
      fc.constantFrom('', 'quay.io/', 'a/'),
      fc.constantFrom('', ':v1'),
    )
    .map(([n, registry, tag]) => `${registry}${'a'.repeat(n)}${tag}`),
  fc.integer({ min: 126, max: 130 }).map((n) => `a/b:${'t'.repeat(n)}`),
);

describe('image references, by property', long, () => {
  it('parse, format and parse again give the same reference', () => {
    fc.assert(
      fc.property(reference, (s) => {
        const parsed = parseReference(s);
        expect(parseReference(formatReference(parsed))).toEqual(parsed);
      }),
      params,
    );
  });

  it('keeps the tag and digest it was given', () => {
    fc.assert(
      fc.property(reference, (s) => {
        const parsed = parseReference(s);
        expect(
          s.endsWith(
            `${parsed.tag === undefined ? '' : `:${parsed.tag}`}${parsed.digest === undefined ? '' : `@${parsed.digest}`}`,
          ),
        ).toBe(true);
      }),
      params,
    );
  });

  it('refuses anything else with a one-line ReferenceInvalidError that quotes the input', () => {
    fc.assert(
      fc.property(fc.oneof(referenceish, fc.string({ maxLength: 300 })), (s) => {
        try {
          const parsed = parseReference(s);
          expect(parseReference(formatReference(parsed))).toEqual(parsed);
        } catch (err) {
          expect(err).toBeInstanceOf(ReferenceInvalidError);
          expect((err as Error).message).toContain(JSON.stringify(s));
          expect((err as Error).message.split('\n')).toHaveLength(JSON.stringify(s).split('\n').length);
        }
      }),
      params,
    );
  });

  it('formats a parsed reference to a fixed point: formatting what that parses to gives the same text', () => {
    fc.assert(
      fc.property(fc.oneof(reference, referenceish), (s) => {
        let text: string;
        try {
          text = formatReference(parseReference(s));
        } catch {
          return;
        }
        expect(formatReference(parseReference(text))).toBe(text);
      }),
      params,
    );
  });
});

/** The registry and repository Go's `ParseNormalizedNamed` gives, without tag or digest. */
function goName(s: string): string {
  const [domain, remainder] = splitDockerDomain(s.replace(/@.*$/, ''));
  return `${domain}/${remainder.replace(/:[^/]*$/, '')}`;
}

describe('the registry client parser and the validators, on one grammar', long, () => {
  it('the validators accept every generated reference, and name it as the parser does', () => {
    fc.assert(
      fc.property(reference, (s) => {
        expect(normalizedReferenceProblem(s)).toBeUndefined();
        const parsed = parseReference(s);
        expect(`${parsed.registry}/${parsed.repository}`).toBe(goName(s));
      }),
      params,
    );
  });

  it('agree on text near the grammar, but for what the parser reads more widely', () => {
    fc.assert(
      fc.property(referenceish, (s) => {
        let parsed: ReturnType<typeof parseReference> | undefined;
        try {
          parsed = parseReference(s);
        } catch {
          parsed = undefined;
        }
        const problem = normalizedReferenceProblem(s);
        // The parser pulls by sha256 only; the validators also know sha384 and sha512.
        const otherDigest = /@sha(384|512):/.test(s);
        if (problem === undefined && !otherDigest) {
          expect(parsed, `the parser refuses ${JSON.stringify(s)}`).toBeDefined();
          expect(`${parsed?.registry}/${parsed?.repository}`).toBe(goName(s));
        }
        // The parser ignores surrounding spaces and reads a bracketed IPv6 registry, as Docker's client does.
        if (parsed !== undefined && s === s.trim() && !parsed.registry.startsWith('[')) {
          expect(problem, `the validators refuse ${JSON.stringify(s)}`).toBeUndefined();
        }
      }),
      params,
    );
  });
});

describe('plain references, read without the grammar', long, () => {
  it('are accepted only where the grammar accepts them', () => {
    fc.assert(
      fc.property(fc.oneof(reference, referenceish, plainish), (s) => {
        if (isPlainValidReference(s)) expect(normalizedReferenceProblemByGrammar(s), s).toBeUndefined();
        expect(normalizedReferenceProblem(s), s).toBe(normalizedReferenceProblemByGrammar(s));
      }),
      params,
    );
  });

  it('cover the references catalogs name: a registry, a lowercase path and a tag', () => {
    fc.assert(
      fc.property(reference, (s) => {
        if (!s.includes('@') && s.length <= 200) expect(isPlainValidReference(s), s).toBe(true);
      }),
      params,
    );
    for (const s of [
      'quay.io/acme/memcached-operator:v0.1.0',
      'memcached:1.6',
      'localhost:5000/a/b',
      'busybox',
    ]) {
      expect(isPlainValidReference(s), s).toBe(true);
    }
  });
});
