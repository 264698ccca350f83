import { describe, expect, it } from 'vitest';
import { formatValidationMessage } from '../../src/validation/bundle-format.js';
import { reportOutputs, resultOutputs, toJsonAlpha1 } from '../../src/validation/output.js';
import { validateBundleDir } from '../../src/validation/validate-bundle-dir.js';
import { compareProblems, corpusCases, withPath } from './corpus.js';

// Each case of test/bundle/corpus/<case>/ holds a bundle directory and, in expected.json, what
// `operator-sdk bundle validate <dir> --select-optional suite=operatorframework -o json-alpha1` reports for it
// (SDK v1.42 flow on operator-framework/api v0.45.0 and operator-registry v1.73.0).

const cases = corpusCases();

describe('bundle corpus', () => {
  it('has at least 12 broken and 2 valid bundles', () => {
    expect(cases.filter((c) => !c.expected.passed).length).toBeGreaterThanOrEqual(12);
    expect(
      cases.filter((c) => c.expected.passed && c.expected.problems.length === 0).length,
    ).toBeGreaterThanOrEqual(2);
  });

  describe.each(cases)('$name', ({ path, expected }) => {
    const report = validateBundleDir(path, {
      selectOptional: expected.meta.selectOptional,
      ...(expected.meta.optionalValues !== undefined ? { optionalValues: expected.meta.optionalValues } : {}),
    });

    it('reaches the same verdict', () => {
      expect(report.passed).toBe(expected.passed);
    });

    it('stops where operator-sdk stops', () => {
      expect(report.fatal).toBe(expected.fatal === undefined ? undefined : withPath(expected.fatal, path));
    });

    it('reports the same format errors', () => {
      expect([...report.formatErrors].sort()).toStrictEqual(
        [...(expected.format ?? [])].map((f) => withPath(f, path)).sort(),
      );
    });

    it('reports the same problems at the same levels', () => {
      const actual =
        report.fatal === undefined
          ? reportOutputs(report).filter((o) => !o.message.startsWith('error validating format'))
          : [];
      const { missing, unexpected } = compareProblems(expected.problems, actual, path);
      expect({ missing, unexpected }).toStrictEqual({ missing: [], unexpected: [] });
    });

    const opkit = expected.opkit;
    if (opkit === undefined) return;
    it('reports the opkit-only problems', () => {
      const content = validateBundleDir(path);
      const own = validateBundleDir(path, { selectOptional: opkit.selectOptional });
      const extra = resultOutputs(own.results.slice(content.results.length));
      const { missing, unexpected } = compareProblems(opkit.problems, extra, path);
      expect({ missing, unexpected }).toStrictEqual({ missing: [], unexpected: [] });
    });
  });
});

describe('json-alpha1 output', () => {
  it('prints format errors as one message and passes as operator-sdk does', () => {
    const c = cases.find((x) => x.name === 'missing-channels-annotation')!;
    const json = toJsonAlpha1(validateBundleDir(c.path));
    expect(json.passed).toBe(false);
    expect(json.outputs).toHaveLength(1);
    expect(json.outputs![0]!.type).toBe('error');
    const combined = json.outputs![0]!.message;
    expect(combined.startsWith(`error validating format in ${c.path}: Bundle validation errors: `)).toBe(
      true,
    );
    expect(combined).toBe(formatValidationMessage(c.path, validateBundleDir(c.path).formatErrors));
  });

  it('has null outputs for a clean bundle', () => {
    const c = cases.find((x) => x.name === 'valid-minimal')!;
    expect(
      toJsonAlpha1(validateBundleDir(c.path, { selectOptional: 'suite=operatorframework' })),
    ).toStrictEqual({
      passed: true,
      outputs: null,
    });
  });
});
