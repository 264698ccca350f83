import { CatalogLoadError } from '@opkit/olm';
import { describe, expect, it } from 'vitest';
import { CliError, reportLine } from './cli-error.js';

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
