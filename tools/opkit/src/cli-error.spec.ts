import { CatalogLoadError } from '@opkit/olm';
import { describe, expect, it } from 'vitest';
import { CliError, reportLine, unexpectedLine, withoutKlogLines } from './cli-error.js';

describe('reportLine', () => {
  it('names the broken catalog file when the reason does not', () => {
    const error = new CatalogLoadError('configs', [
      {
        file: 'demo/catalog.yaml',
        message: 'error converting YAML to JSON: yaml: document contains excessive aliasing',
      },
    ]);
    expect(reportLine(error)).toBe(
      'demo/catalog.yaml: error converting YAML to JSON: yaml: document contains excessive aliasing',
    );
  });

  it('leaves a reason that already names its file as it is', () => {
    const error = new CatalogLoadError('configs', [
      { file: 'a.json', message: 'read a.json: file of 9 bytes exceeds the limit of 1 bytes' },
    ]);
    expect(reportLine(error)).toBe('read a.json: file of 9 bytes exceeds the limit of 1 bytes');
  });

  it('hides the credentials of URLs and headers a message carries', () => {
    const error = new CliError(
      'X',
      'GET https://bot:hunter2@git.test/repo?access_token=abc failed; sent Authorization: Bearer eyJx.eyJy.sig',
    );
    expect(reportLine(error)).toBe(
      'GET https://***@git.test/repo?access_token=*** failed; sent Authorization: ***',
    );
  });

  it('folds a message that lists its problems on lines of their own into one line', () => {
    const error = new CliError(
      'X',
      'malformed bundle b:\n  manifests/a.yaml: too deep\n  metadata/: missing\n',
    );
    expect(reportLine(error)).toBe('malformed bundle b: manifests/a.yaml: too deep; metadata/: missing');
  });

  it('prints other errors by their message', () => {
    expect(reportLine(new CliError('X', 'bundle.yaml: spec.version: invalid'))).toBe(
      'bundle.yaml: spec.version: invalid',
    );
  });
});

describe('klog lines of the Go tools opkit runs', () => {
  const klog = [
    'I1206 12:00:00.000000    1234 load.go:12] loading catalog',
    'W1206 12:00:01.123456 1234 render.go:301] falling back to anonymous pull',
  ];

  it('are left out of a reportable error’s line', () => {
    const error = new CliError(
      'X',
      `opm render failed:\n${klog[0]}\n  pkg/catalog.yaml: invalid channel\n${klog[1]}`,
    );
    expect(reportLine(error)).toBe('opm render failed: pkg/catalog.yaml: invalid channel');
  });

  it('are left out when they come first, and out of an unexpected error’s line', () => {
    expect(reportLine(new CliError('X', `${klog[1]}\nbundle image not found`))).toBe(
      'bundle image not found',
    );
    expect(unexpectedLine(new Error(`${klog[0]}\nboom`))).toBe('boom');
  });

  it('a line that only looks like one in part stays', () => {
    const message = 'I1206 is not a timestamp] kept';
    expect(withoutKlogLines(message)).toBe(message);
  });
});
