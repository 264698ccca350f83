import { buildImage, buildImageIndex, layerFromEntries } from '@opkit/oci';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { imageResult, progressLog } from './output.js';

afterEach(() => vi.restoreAllMocks());

describe('the results and progress of -o text|json|yaml', () => {
  it('progress lines go to stdout with text, to stderr with json and yaml', () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    progressLog('text')('bundling src/main.ts');
    progressLog('json')('layer sha256:1');
    progressLog('yaml')('layer sha256:2');
    vi.restoreAllMocks();
    expect(out.mock.calls).toEqual([['bundling src/main.ts\n']]);
    expect(err.mock.calls).toEqual([['layer sha256:1\n'], ['layer sha256:2\n']]);
  });

  it('an image and an image index are described by their manifest’s digest, media type and size', () => {
    const layer = layerFromEntries([{ path: 'hello.txt', content: 'hello' }]);
    const amd64 = buildImage([layer]);
    expect(imageResult('dist/images/x', 'v1', amd64)).toEqual({
      reference: 'dist/images/x:v1',
      layout: 'dist/images/x',
      tag: 'v1',
      digest: amd64.digest,
      mediaType: amd64.mediaType,
      size: amd64.manifestBytes.byteLength,
    });
    const index = buildImageIndex([amd64, buildImage([layer], { architecture: 'arm64' })]);
    expect(imageResult('x', 'latest', index)).toMatchObject({
      digest: index.digest,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      size: index.indexBytes.byteLength,
    });
  });
});
