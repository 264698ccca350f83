import { describe, expect, it } from 'vitest';
import {
  BASE_IMAGE_ANNOTATION,
  LOCAL_REGISTRY_HOSTING,
  localOperatorImage,
  parseLocalRegistryHosting,
} from './local-registry.js';
import { baseUnreachableMessage } from './pipelines/build-operator-image.js';
import { DEFAULT_BASE_IMAGE } from './pipelines/image-defaults.js';
import { localDeployImagePlan } from './pipelines/local-deploy-image.js';

const hosting = (yaml: string, annotations?: Record<string, string>) => ({
  metadata: annotations === undefined ? {} : { annotations },
  data: { [LOCAL_REGISTRY_HOSTING.key]: yaml },
});

describe('the local-registry-hosting ConfigMap (KEP-1755)', () => {
  it("reads the KEP's own example, the runtime's host defaulting to host when absent", () => {
    const example = hosting(
      [
        'host: "localhost:5000"',
        'hostFromContainerRuntime: "registry:5000"',
        'hostFromClusterNetwork: "kind-registry:5000"',
        'help: "https://kind.sigs.k8s.io/docs/user/local-registry/"',
      ].join('\n'),
    );
    expect(parseLocalRegistryHosting(example)).toEqual({
      host: 'localhost:5000',
      hostFromContainerRuntime: 'registry:5000',
      help: 'https://kind.sigs.k8s.io/docs/user/local-registry/',
    });
    expect(parseLocalRegistryHosting(hosting('host: "127.0.0.1:40123"\n'))).toEqual({
      host: '127.0.0.1:40123',
      hostFromContainerRuntime: '127.0.0.1:40123',
    });
  });

  it("takes opkit's base image from its annotation, and ignores fields it does not know", () => {
    const configMap = hosting('host: "127.0.0.1:40123"\nfutureField: 1\n', {
      [BASE_IMAGE_ANNOTATION]: '127.0.0.1:40123/opkit/node:24.11.1',
    });
    expect(parseLocalRegistryHosting(configMap)?.baseImage).toBe('127.0.0.1:40123/opkit/node:24.11.1');
  });

  it('refuses a base-image annotation that is not an image reference, naming the ConfigMap and field', () => {
    const configMap = hosting('host: "127.0.0.1:40123"\n', { [BASE_IMAGE_ANNOTATION]: 'not a reference' });
    expect(() => parseLocalRegistryHosting(configMap)).toThrow(
      'ConfigMap kube-public/local-registry-hosting metadata.annotations["opkit.dev/base-image"] must be an image reference, got "not a reference"',
    );
  });

  it('describes no registry without the v1 key, or with only a help page', () => {
    expect(parseLocalRegistryHosting({})).toBeUndefined();
    expect(parseLocalRegistryHosting({ data: { 'localRegistryHosting.v2': 'host: x:1' } })).toBeUndefined();
    expect(parseLocalRegistryHosting(hosting('help: "https://example.com/registry"\n'))).toBeUndefined();
  });

  it('refuses, in one line naming the ConfigMap, what is not YAML or not a host', () => {
    expect(() => parseLocalRegistryHosting(hosting('host: [unclosed'))).toThrow(
      /^ConfigMap kube-public\/local-registry-hosting: localRegistryHosting\.v1 is not YAML: /,
    );
    expect(() => parseLocalRegistryHosting(hosting('- a list'))).toThrow(/is not a mapping$/);
    expect(() => parseLocalRegistryHosting(hosting('host: "http://127.0.0.1:5000"'))).toThrow(
      'localRegistryHosting.v1.host must be a registry host[:port], got "http://127.0.0.1:5000"',
    );
    expect(() => parseLocalRegistryHosting(hosting('host: 5000'))).toThrow(/got 5000$/);
  });
});

describe('the image opkit deploy makes for a local registry', () => {
  const operator = { name: 'memcached-operator', version: '0.3.0' };

  it('is <host>/<package>:<version>, deployed under the name the container runtime pulls', () => {
    const registry = { host: 'localhost:5001', hostFromContainerRuntime: 'kind-registry:5000' };
    expect(localOperatorImage(registry, operator)).toEqual({
      push: 'localhost:5001/memcached-operator:0.3.0',
      deploy: 'kind-registry:5000/memcached-operator:0.3.0',
    });
  });

  it("is built on the cluster's base over plain HTTP, the registry being on loopback", () => {
    const registry = {
      host: '127.0.0.1:40123',
      hostFromContainerRuntime: '127.0.0.1:40123',
      baseImage: '127.0.0.1:40123/opkit/node:24.11.1',
    };
    expect(localDeployImagePlan(registry, operator)).toEqual({
      base: '127.0.0.1:40123/opkit/node:24.11.1',
      push: '127.0.0.1:40123/memcached-operator:0.3.0',
      deploy: '127.0.0.1:40123/memcached-operator:0.3.0',
      plainHttp: ['127.0.0.1:40123'],
    });
  });

  it("is built on opkit's default base, over HTTPS, when the cluster records no base", () => {
    const plan = localDeployImagePlan(
      { host: 'localhost:5001', hostFromContainerRuntime: 'localhost:5001' },
      operator,
    );
    expect(plan.base).toBe(DEFAULT_BASE_IMAGE);
    expect(plan.plainHttp).toEqual(['localhost:5001']);
  });
});

describe('a base that cannot be fetched', () => {
  const reason = `registry gcr.io unreachable for ${DEFAULT_BASE_IMAGE}: GET https://gcr.io/v2/: getaddrinfo ENOTFOUND gcr.io`;

  it('names the reason and --base', () => {
    expect(baseUnreachableMessage(DEFAULT_BASE_IMAGE, 'gcr.io', reason, undefined)).toBe(
      `cannot fetch base image ${DEFAULT_BASE_IMAGE}: gcr.io unreachable (GET https://gcr.io/v2/: getaddrinfo ENOTFOUND gcr.io); choose a base this machine can reach with --base <registry reference or OCI layout dir[:tag]>`,
    );
  });

  it("names the local cluster's base, with --plain-http for a loopback registry", () => {
    expect(
      baseUnreachableMessage(DEFAULT_BASE_IMAGE, 'gcr.io', reason, '127.0.0.1:40123/opkit/node:24.11.1'),
    ).toMatch(
      /; choose a base this machine can reach with --base, e\.g\. the local cluster's: --base 127\.0\.0\.1:40123\/opkit\/node:24\.11\.1 --plain-http$/,
    );
  });
});
