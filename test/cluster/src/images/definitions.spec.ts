import { describe, expect, it } from 'vitest';
import {
  clusterImageDefinitions,
  definitionArchitectures,
  definitionForArchitecture,
  type ImageDefinition,
  olmImageReferences,
  prometheusImageReferences,
} from './definitions.js';
import { imageVersion, tagFor } from './image-build.js';
import { hostArchitecture } from './platforms.js';

const definitions = clusterImageDefinitions({
  pauseBinary: '/build/pause',
  nodes: {
    amd64: { path: '/n/node', version: '24.21.0' },
    arm64: { path: '/n/arm64/node', version: '24.21.0' },
  },
});
// Host-built programs (pause, busybox) are built for this machine only, whichever it is.
const host = hostArchitecture();
const otherArchitecture = host === 'amd64' ? 'arm64' : 'amd64';
const byName = (name: string): ImageDefinition => {
  const found = definitions.find((d) => d.name === name);
  if (found === undefined) throw new Error(`no definition ${name}`);
  return found;
};

describe('clusterImageDefinitions', () => {
  it('builds the Node.js base and the operands for amd64 and arm64, the images of host-built programs for the host', () => {
    const platforms = Object.fromEntries(definitions.map((d) => [d.name, definitionArchitectures(d)]));
    expect(platforms).toEqual({
      pause: [host],
      busybox: [host],
      memcached: ['amd64', 'arm64'],
      redis: ['amd64', 'arm64'],
      node: ['amd64', 'arm64'],
    });
  });

  it("puts each platform's own Node.js into that platform's image", () => {
    const files = (architecture: 'amd64' | 'arm64') =>
      definitionForArchitecture(byName('node'), architecture).files?.map((f) => [
        f.path,
        f.source,
        f.identity,
      ]);
    expect(files('amd64')).toEqual([['/usr/local/bin/node', '/n/node', 'node v24.21.0 linux-x64']]);
    expect(files('arm64')).toEqual([['/usr/local/bin/node', '/n/arm64/node', 'node v24.21.0 linux-arm64']]);
    expect(() => definitionForArchitecture(byName('pause'), otherArchitecture)).toThrow(
      `pause is not built for ${otherArchitecture}`,
    );
  });

  it('needs a Node.js for every platform of the base', () => {
    expect(() =>
      clusterImageDefinitions({ pauseBinary: '/p', nodes: { amd64: { path: '/n', version: '24.21.0' } } }),
    ).toThrow(/needs a Node.js for arm64/);
  });

  it('has unique names and repositories, all under registries the mirror serves', () => {
    expect(definitions.map((d) => d.name)).toEqual(['pause', 'busybox', 'memcached', 'redis', 'node']);
    const repositories = definitions.flatMap((d) => d.repositories);
    expect(new Set(repositories).size).toBe(repositories.length);
    for (const repository of repositories) expect(repository).toMatch(/^(docker\.io|registry\.k8s\.io)\//);
  });

  it('runs the stateful servers as the official images do, with numeric ids', () => {
    expect(byName('memcached')).toMatchObject({
      packages: ['memcached'],
      user: { uid: 11211, gid: 11211, name: 'memcache' },
      cmd: ['memcached'],
      exposedPorts: ['11211/tcp'],
    });
    expect(byName('memcached').entrypoint).toBeUndefined();
    expect(byName('redis')).toMatchObject({
      packages: ['redis-server', 'redis-tools'],
      user: { uid: 999, gid: 999, name: 'redis' },
      workingDir: '/data',
      directories: [{ path: '/data', mode: 0o777 }],
      cmd: ['redis-server'],
      exposedPorts: ['6379/tcp'],
    });
  });

  it('builds pause from the given binary alone and node on Debian libraries', () => {
    expect(byName('pause')).toMatchObject({
      repositories: ['registry.k8s.io/pause'],
      version: { fixed: '3.10.1' },
      packages: [],
      files: [{ path: '/pause', source: '/build/pause', mode: 0o755 }],
      user: { uid: 65535, gid: 65535 },
      entrypoint: ['/pause'],
    });
    expect(byName('node')).toMatchObject({
      repositories: ['docker.io/opkit/node'],
      version: { fixed: '24.21.0' },
      packages: ['libstdc++6'],
      user: { uid: 65532, gid: 65532 },
      entrypoint: ['/usr/local/bin/node'],
      env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
    });
    expect(byName('node').directories).toContainEqual({ path: '/tmp', mode: 0o1777 });
  });

  it('links the busybox applets tests use, and runs busybox as root', () => {
    const busybox = byName('busybox');
    const applets = (busybox.symlinks ?? []).map((l) => l.path.replace('/bin/', ''));
    for (const applet of ['sh', 'ls', 'cat', 'echo', 'sleep', 'nc', 'httpd', 'wget', 'grep', 'ps', 'id']) {
      expect(applets).toContain(applet);
    }
    for (const applet of ['date', 'mkdir', 'rm', 'test', 'true', 'false', 'env'])
      expect(applets).toContain(applet);
    expect(new Set(applets).size).toBe(applets.length);
    expect(busybox.symlinks?.every((l) => l.target === 'busybox')).toBe(true);
    expect(busybox.user).toBeUndefined();
    expect(busybox.cmd).toEqual(['sh']);
  });
});

describe("OLM's helper images", () => {
  const olm = {
    olmVersion: '0.46.0',
    opmVersion: '1.73.0',
    olm: '/b/olm',
    catalog: '/b/catalog',
    packageServer: '/b/package-server',
    cpb: '/b/cpb',
    copyContent: '/b/copy-content',
    opm: '/b/opm',
    grpcHealthProbe: '/b/grpc_health_probe',
  };
  const withOlm = clusterImageDefinitions({
    pauseBinary: '/build/pause',
    nodes: {
      amd64: { path: '/n/node', version: '24.21.0' },
      arm64: { path: '/n/arm64/node', version: '24.21.0' },
    },
    olm,
  });
  const image = (name: string) => withOlm.find((d) => d.name === name);

  it('are built only for clusters with OLM, under the references the catalog operator is given', () => {
    expect(definitions.map((d) => d.name)).not.toContain('opm');
    expect(withOlm.map((d) => d.name).slice(-2)).toEqual(['olm-util', 'opm']);
    const references = olmImageReferences({ olm: '0.46.0', opm: '1.73.0' });
    expect(references).toEqual({
      util: 'quay.io/operator-framework/olm:v0.46.0',
      opm: 'quay.io/operator-framework/opm:v1.73.0',
    });
    expect(`${image('olm-util')?.repositories[0]}:${imageVersion(image('olm-util')!, [])}`).toBe(
      references.util,
    );
    expect(`${image('opm')?.repositories[0]}:${imageVersion(image('opm')!, [])}`).toBe(references.opm);
  });

  it("hold what OLM's manifests and pod specs call, at upstream's paths, as user 1001", () => {
    for (const name of ['olm-util', 'opm']) {
      expect(image(name)?.symlinks).toContainEqual({ path: '/bin/cp', target: 'busybox' });
      expect(image(name)?.packages).toEqual(['busybox-static']);
      expect(image(name)?.user).toEqual({ uid: 1001, gid: 1001 });
    }
    expect(image('olm-util')?.files?.map((f) => [f.path, f.source])).toEqual([
      ['/bin/olm', '/b/olm'],
      ['/bin/catalog', '/b/catalog'],
      ['/bin/package-server', '/b/package-server'],
      ['/bin/copy-content', '/b/copy-content'],
      ['/bin/cpb', '/b/cpb'],
    ]);
    expect(image('olm-util')?.entrypoint).toEqual(['/bin/olm']);
    expect(image('olm-util')?.exposedPorts).toEqual(['8080/tcp', '5443/tcp']);
    expect(image('opm')?.files?.map((f) => [f.path, f.source])).toEqual([
      ['/bin/opm', '/b/opm'],
      ['/bin/grpc_health_probe', '/b/grpc_health_probe'],
    ]);
    expect(image('opm')?.entrypoint).toEqual(['/bin/opm']);
  });
});

describe("the Prometheus Operator's and Prometheus' images", () => {
  const withPrometheus = clusterImageDefinitions({
    pauseBinary: '/build/pause',
    nodes: {
      amd64: { path: '/n/node', version: '24.21.0' },
      arm64: { path: '/n/arm64/node', version: '24.21.0' },
    },
    prometheus: {
      operatorVersion: '0.85.0',
      prometheusVersion: '3.16.0',
      operator: '/b/operator',
      configReloader: '/b/prometheus-config-reloader',
      prometheus: '/b/prometheus',
    },
  });
  const image = (name: string) => {
    const found = withPrometheus.find((d) => d.name === name);
    if (found === undefined) throw new Error(`no definition ${name}`);
    return found;
  };
  const names = ['prometheus-operator', 'prometheus-config-reloader', 'prometheus'];

  it('are built only for clusters with Prometheus, under the upstream references the install names', () => {
    expect(definitions.map((d) => d.name)).not.toContain('prometheus');
    expect(withPrometheus.map((d) => d.name).slice(-3)).toEqual(names);
    const references = prometheusImageReferences({ operator: '0.85.0', prometheus: '3.16.0' });
    expect(references).toEqual({
      operator: 'quay.io/prometheus-operator/prometheus-operator:v0.85.0',
      configReloader: 'quay.io/prometheus-operator/prometheus-config-reloader:v0.85.0',
      prometheus: 'quay.io/prometheus/prometheus:v3.16.0',
    });
    const referenceOf = (name: string) => `${image(name).repositories[0]}:${imageVersion(image(name), [])}`;
    expect(names.map(referenceOf)).toEqual([
      references.operator,
      references.configReloader,
      references.prometheus,
    ]);
  });

  it("run each program from /bin, where the operator's pod specs call the reloader, as user nobody", () => {
    expect(names.map((name) => image(name).entrypoint)).toEqual([
      ['/bin/operator'],
      ['/bin/prometheus-config-reloader'],
      ['/bin/prometheus'],
    ]);
    expect(image('prometheus-config-reloader').files?.map((f) => [f.path, f.source])).toEqual([
      ['/bin/prometheus-config-reloader', '/b/prometheus-config-reloader'],
    ]);
    for (const name of names) expect(image(name).user).toEqual({ uid: 65534, gid: 65534 });
    expect(image('prometheus').workingDir).toBe('/prometheus');
    expect(image('prometheus').directories).toEqual([{ path: '/prometheus', mode: 0o777 }]);
  });
});

describe('image versions and tags', () => {
  const packages = [
    { name: 'libc6', version: '2.36-9+deb12u14' },
    { name: 'redis-server', version: '5:7.0.15-1~deb12u10' },
  ];

  it('takes the version from the named package or the fixed one', () => {
    expect(imageVersion(byName('redis'), packages)).toBe('7.0.15');
    expect(imageVersion(byName('pause'), [])).toBe('3.10.1');
    expect(() => imageVersion(byName('memcached'), packages)).toThrow(/memcached, which names its version/);
  });

  it('derives full, minor and major tags', () => {
    expect(tagFor('version', '7.0.15')).toBe('7.0.15');
    expect(tagFor('minor', '7.0.15')).toBe('7.0');
    expect(tagFor('major', '24.21.0')).toBe('24');
  });
});
