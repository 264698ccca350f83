import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// The reader, `opkit deploy`'s, from the CLI's sources: writer and reader are checked against each other.
import { parseLocalRegistryHosting } from '../../../../tools/opkit/src/local-registry.js';
import {
  BASE_IMAGE_ANNOTATION,
  LOCAL_REGISTRY_HELP,
  localRegistryHostingConfigMap,
  nodeBaseImage,
} from './local-registry-hosting.js';

describe("the cluster's local-registry-hosting ConfigMap", () => {
  const configMap = localRegistryHostingConfigMap({
    host: '127.0.0.1:40123',
    baseImage: '127.0.0.1:40123/opkit/node:24.11.1',
  });

  it("is KEP-1755's: kube-public/local-registry-hosting, localRegistryHosting.v1 with host and help", () => {
    expect(configMap.metadata).toMatchObject({ name: 'local-registry-hosting', namespace: 'kube-public' });
    expect(Object.keys(configMap.data)).toEqual(['localRegistryHosting.v1']);
    expect(parse(configMap.data['localRegistryHosting.v1'] ?? '')).toEqual({
      host: '127.0.0.1:40123',
      help: LOCAL_REGISTRY_HELP,
    });
  });

  it('carries the base image in an annotation of its own', () => {
    expect(configMap.metadata.annotations).toEqual({
      [BASE_IMAGE_ANNOTATION]: '127.0.0.1:40123/opkit/node:24.11.1',
    });
  });

  it("reads back, by the CLI's parser, as the registry and base image it records", () => {
    expect(parseLocalRegistryHosting(configMap)).toEqual({
      host: '127.0.0.1:40123',
      hostFromContainerRuntime: '127.0.0.1:40123',
      help: LOCAL_REGISTRY_HELP,
      baseImage: '127.0.0.1:40123/opkit/node:24.11.1',
    });
  });
});

describe('the base image the cluster records', () => {
  const image = (name: string, references: string[]) => ({
    name,
    references,
    layout: '/x',
    digest: 'sha256:0',
    platforms: [{ architecture: 'amd64' as const, layout: '/x', digest: 'sha256:0' }],
    buildSeconds: 0,
  });

  it("is the Node image's full-version tag, as pulled from the cluster's registry", () => {
    const images = [
      image('pause', ['registry.k8s.io/pause:3.10.1']),
      image('node', ['docker.io/opkit/node:24.11.1', 'docker.io/opkit/node:24']),
    ];
    expect(nodeBaseImage(images, '127.0.0.1:40123')).toBe('127.0.0.1:40123/opkit/node:24.11.1');
  });

  it('is none without a Node image', () => {
    expect(nodeBaseImage([image('pause', ['registry.k8s.io/pause:3.10.1'])], '127.0.0.1:1')).toBeUndefined();
  });
});
