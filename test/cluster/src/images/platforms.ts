import { ImageBuildError } from './errors.js';

/** A CPU architecture the images are built for, by its OCI name. */
export type ImageArchitecture = 'amd64' | 'arm64';

/** How the tools involved name one architecture. */
export interface ArchitectureNames {
  /** Debian's name (`dpkg --print-architecture`), for apt and mmdebstrap. */
  readonly debian: string;
  /** Node.js's name (`process.arch`), as in npm's `node-linux-<arch>` packages. */
  readonly node: string;
  /** QEMU's user-mode emulator suffix (`qemu-<name>-static`). */
  readonly qemu: string;
  /** ELF `e_machine` of its executables. */
  readonly elfMachine: number;
}

/**
 * Every architecture the builder knows. ppc64le and s390x are left out: npm's `node-linux-ppc64le` and
 * `node-linux-s390x` stop at Node.js 20 (there is no `node-linux-ppc64`), so no Node.js 24 base could be made.
 */
export const ARCHITECTURES: Readonly<Record<ImageArchitecture, ArchitectureNames>> = {
  amd64: { debian: 'amd64', node: 'x64', qemu: 'x86_64', elfMachine: 62 },
  arm64: { debian: 'arm64', node: 'arm64', qemu: 'aarch64', elfMachine: 183 },
};

/**
 * The platforms (all `linux/…`) of the multi-platform images: the Node.js base and the operand images. The one
 * list to change for another platform.
 */
export const IMAGE_ARCHITECTURES: readonly ImageArchitecture[] = ['amd64', 'arm64'];

/** The architecture of this machine, which builds single-platform images (from its own Go builds). */
export function hostArchitecture(arch: string = process.arch): ImageArchitecture {
  const found = (Object.keys(ARCHITECTURES) as ImageArchitecture[]).find(
    (a) => ARCHITECTURES[a].node === arch,
  );
  if (found === undefined)
    throw new ImageBuildError(`the cluster's images cannot be built on a ${arch} machine`);
  return found;
}

/** The `e_machine` field of an ELF header (little-endian files; every architecture above is). */
export function elfMachine(header: Buffer): number | undefined {
  const isElf = header.length >= 20 && header.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  return isElf ? header.readUInt16LE(18) : undefined;
}
