import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_NETWORK } from './addresses.js';

/**
 * Registries whose images the node pulls from the cluster's local registry instead. `registry.example` is
 * the placeholder registry our operators' bundles name until a user stamps in their own.
 */
export const MIRRORED_REGISTRIES = [
  'docker.io',
  'quay.io',
  'gcr.io',
  'registry.k8s.io',
  'ghcr.io',
  'registry.example',
] as const;

/** The sandbox (pause) image, pinned so it is never garbage-collected; built locally like every image. */
export const SANDBOX_IMAGE = 'registry.k8s.io/pause:3.10.1';

export interface ContainerdLayout {
  /** The node's directory; containerd's root, state, sockets and runc's state live below it. */
  readonly dir: string;
  /** `127.0.0.1:<port>` of the local registry. */
  readonly registry: string;
  /** Debian's `/usr/lib/cni` (bridge, host-local, loopback, portmap). */
  readonly cniBinDir: string;
  readonly runc: string;
}

export interface ContainerdPaths {
  readonly config: string;
  readonly socket: string;
  readonly cniConfDir: string;
}

/**
 * Writes containerd's configuration (version 4, containerd 2.4's own), the registry host files and the CNI
 * network, and returns their paths. Only what differs from containerd's defaults is set, each with its reason.
 */
export function writeContainerdConfig(l: ContainerdLayout): ContainerdPaths {
  const root = join(l.dir, 'containerd');
  const socket = join(root, 'containerd.sock');
  const certsDir = join(root, 'certs.d');
  const cniConfDir = join(l.dir, 'cni', 'net.d');
  for (const d of [root, certsDir, cniConfDir]) mkdirSync(d, { recursive: true });
  const toml = `version = 4
# Everything under the node's directory, so nodes of successive clusters never share state.
root = '${join(root, 'root')}'
state = '${join(root, 'state')}'
# NRI would open a socket under /run/nri, the image verifier scans /opt; nothing here uses either.
disabled_plugins = ['io.containerd.nri.v1.nri', 'io.containerd.image-verifier.v1.bindir']

[plugins]
  [plugins.'io.containerd.server.v1.grpc']
    address = '${socket}'

  [plugins.'io.containerd.server.v1.ttrpc']
    address = '${socket}.ttrpc'

  [plugins.'io.containerd.internal.v1.opt']
    path = '${join(root, 'opt')}'

  [plugins.'io.containerd.cri.v1.runtime']
    # This VM's root lacks CAP_SYS_RESOURCE: runc may not lower a container's OOM score below its own.
    restrict_oom_score_adj = true
    # Pod network namespaces are mounted under the state dir instead of /var/run/netns.
    netns_mounts_under_state_dir = true

    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'

      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = 'io.containerd.runc.v2'

        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = '${l.runc}'
          Root = '${join(root, 'runc')}'
          # The kubelet's cgroupfs driver (this kernel mounts cgroup v1 hierarchies, no systemd manages them).
          SystemdCgroup = false

    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = ['${l.cniBinDir}']
      conf_dir = '${cniConfDir}'

  [plugins.'io.containerd.cri.v1.images']
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = '${SANDBOX_IMAGE}'

    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = '${certsDir}'
`;
  const config = join(root, 'config.toml');
  writeFileSync(config, toml);
  // Each mirrored registry (and the local one by its own name) resolves to the local registry only: with the
  // server itself set to it, containerd never falls back to the internet.
  for (const host of [...MIRRORED_REGISTRIES, l.registry]) {
    const dir = join(certsDir, host);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'hosts.toml'),
      `server = 'http://${l.registry}'\n\n[host.'http://${l.registry}']\n  capabilities = ['pull', 'resolve']\n`,
    );
  }
  writeFileSync(join(cniConfDir, '10-opkit.conflist'), `${JSON.stringify(cniNetwork(l.dir), null, 2)}\n`);
  return { config, socket, cniConfDir };
}

/**
 * The pod network: a veth per pod on the node's bridge, addresses from the pod range, and a route for the
 * service range only — no default route, so a pod cannot even try to reach beyond the node.
 */
function cniNetwork(dir: string): object {
  const { bridge, podCidr, nodeIP, serviceCidr, realPodRange } = NODE_NETWORK;
  return {
    cniVersion: '1.0.0',
    name: 'opkit',
    plugins: [
      {
        type: 'bridge',
        bridge,
        // The bridge and its address are set up by the node; the plugin must not turn on forwarding or NAT.
        isGateway: false,
        ipMasq: false,
        // A pod reaching itself through its own Service.
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [
            [
              {
                subnet: podCidr,
                rangeStart: realPodRange.start,
                rangeEnd: realPodRange.end,
                gateway: nodeIP,
              },
            ],
          ],
          routes: [{ dst: serviceCidr, gw: nodeIP }],
          dataDir: join(dir, 'cni', 'ipam'),
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
}
