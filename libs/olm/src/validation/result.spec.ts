import { describe, expect, it } from 'vitest';
import { formatJsonAlpha1, formatText, toJsonAlpha1 } from './output.js';
import {
  errFieldMissing,
  errInvalidBundle,
  errInvalidCsv,
  errInvalidParse,
  formatValidationError,
  newError,
  warnInvalidBundle,
  warnInvalidCsv,
} from './result.js';
import type { BundleValidationReport } from './validate-bundle-dir.js';

describe('formatValidationError', () => {
  it('prints the four shapes of operator-framework/api', () => {
    expect(
      formatValidationError(errFieldMissing('required field missing', 'Spec.DisplayName', 'field')),
    ).toBe('Error: Field Spec.DisplayName, Value field: required field missing');
    expect(
      formatValidationError(newError('FieldValueRequired', 'spec.scope: Required value', 'spec.scope')),
    ).toBe('Error: Field spec.scope: spec.scope: Required value');
    expect(formatValidationError(errInvalidBundle('owned CRD missing', 'g/v, Kind=K'))).toBe(
      'Error: Value g/v, Kind=K: owned CRD missing',
    );
    expect(formatValidationError(errInvalidParse("couldn't parse plural.group from crd name: x"))).toBe(
      "Error: : couldn't parse plural.group from crd name: x",
    );
    expect(formatValidationError({ type: 'X', level: 'Error', field: '', detail: '' })).toBe(
      'ErrMessageMissing',
    );
  });

  it('prints ErrInvalidCSV with an empty value and the CSV name in the detail', () => {
    expect(formatValidationError(warnInvalidCsv('annotations not found', 'demo.v0.1.0'))).toBe(
      'Warning: Value : (demo.v0.1.0) annotations not found',
    );
    expect(errInvalidCsv('x', 'c')).toStrictEqual({
      type: 'CSVFileNotValid',
      level: 'Error',
      field: '',
      value: '',
      detail: '(c) x',
    });
  });

  it('keeps upstream reporting WarnInvalidBundle at level Error', () => {
    expect(warnInvalidBundle('nearing maximum', 'b').level).toBe('Error');
  });
});

describe('report output', () => {
  const report: BundleValidationReport = {
    dir: 'bundle',
    passed: false,
    formatErrors: ['Missing annotation "a"', 'Missing annotation "b"'],
    results: [
      { name: '0.1.0', errors: [errInvalidBundle('bad', 'v')] },
      {
        name: 'demo.v0.1.0',
        errors: [errInvalidCsv('broken', 'demo.v0.1.0'), warnInvalidCsv('careful', 'demo.v0.1.0')],
      },
    ],
  };

  it('prints json-alpha1 like operator-sdk: format errors as one message, warnings before errors per result', () => {
    expect(formatJsonAlpha1(report)).toBe(`{
    "passed": false,
    "outputs": [
        {
            "type": "error",
            "message": "error validating format in bundle: Bundle validation errors: Missing annotation \\"a\\",Missing annotation \\"b\\""
        },
        {
            "type": "error",
            "message": "Error: Value v: bad"
        },
        {
            "type": "warning",
            "message": "Warning: Value : (demo.v0.1.0) careful"
        },
        {
            "type": "error",
            "message": "Error: Value : (demo.v0.1.0) broken"
        }
    ]
}
`);
  });

  it('prints null outputs when there is nothing to say', () => {
    expect(
      toJsonAlpha1({ dir: 'b', passed: true, formatErrors: [], results: [{ name: '', errors: [] }] }),
    ).toStrictEqual({
      passed: true,
      outputs: null,
    });
  });

  it('prints text like logrus on a terminal', () => {
    expect(formatText({ ...report, formatErrors: [] })).toBe(
      'ERRO[0000] Error: Value v: bad\nWARN[0000] Warning: Value : (demo.v0.1.0) careful\nERRO[0000] Error: Value : (demo.v0.1.0) broken\n',
    );
    expect(formatText({ dir: 'b', passed: true, formatErrors: [], results: [] })).toBe(
      'INFO[0000] All validation tests have completed successfully\n',
    );
  });

  it('prints a fatal problem as the only error', () => {
    expect(
      toJsonAlpha1({
        dir: 'b',
        passed: false,
        fatal: 'metadata not found in b',
        formatErrors: [],
        results: [],
      }),
    ).toStrictEqual({
      passed: false,
      outputs: [{ type: 'error', message: 'metadata not found in b' }],
    });
  });
});
