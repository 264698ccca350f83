import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { buildImage, type Layer, type OciImage } from '@opkit/oci';

/** One raw tar entry; paths and link targets are written as given, which our own layer builder would refuse. */
export interface RawEntry {
  readonly path: string;
  readonly type: 'file' | 'dir' | 'symlink' | 'hardlink' | 'chardev' | 'fifo';
  readonly content?: string;
  readonly target?: string;
  /** The entry the unpacker names when it refuses the layer; by default the last one. */
  readonly refused?: boolean;
}

function header(entry: RawEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (text: string, at: number, length: number) => h.write(text, at, length, 'utf8');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0');
  put(entry.path, 0, 100);
  put(octal(entry.type === 'dir' ? 0o755 : 0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(0, 12), 136, 12);
  put({ file: '0', dir: '5', symlink: '2', hardlink: '1', chardev: '3', fifo: '6' }[entry.type], 156, 1);
  put(entry.target ?? '', 157, 100);
  put('ustar\u000000', 257, 8);
  rechecksum(h);
  return h;
}

function rechecksum(h: Buffer): void {
  h.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'utf8');
}

/** A gzip-compressed tar of `entries`, exactly as written (no normalisation, no safety checks). */
export function rawLayer(entries: readonly RawEntry[]): Layer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.type === 'file' ? (entry.content ?? '') : '');
    if (Buffer.byteLength(entry.path) > 100) {
      // A path too long for the header goes in a PAX extended header before it, as tar writes one.
      const record = (length: number) => `${length} path=${entry.path}\n`;
      let length = Buffer.byteLength(record(0));
      while (Buffer.byteLength(record(length)) !== length) length = Buffer.byteLength(record(length));
      const pax = Buffer.from(record(length));
      const paxHeader = header({ path: 'PaxHeader', type: 'file' }, pax.byteLength);
      paxHeader.write('x', 156, 1, 'utf8');
      rechecksum(paxHeader);
      blocks.push(paxHeader, pax, Buffer.alloc((512 - (pax.byteLength % 512)) % 512));
    }
    blocks.push(header(entry, body.byteLength), body, Buffer.alloc((512 - (body.byteLength % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  const gz = gzipSync(tar);
  const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
  return { tarDigest: sha(tar), gzDigest: sha(gz), size: gz.byteLength, bytes: new Uint8Array(gz) };
}

const PACKAGE = 'schema: olm.package\nname: demo\n';

/**
 * Links that each stay inside on paper (`configs/u1 -> u0/..` is `configs`) but climb one level per hop on disk:
 * `configs/u0` is the image root, `configs/u1` its parent, and 25 hops reach `/` from any temporary directory.
 * The last entry reads `target` (an absolute path) through them.
 */
function climbToSlash(name: string, target: string): RawEntry[] {
  const hops = 25;
  return [
    { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
    { path: 'configs/u0', type: 'symlink', target: '..' },
    ...Array.from(
      { length: hops },
      (_, i): RawEntry => ({
        path: `configs/u${i + 1}`,
        type: 'symlink',
        target: `u${i}/..`,
        ...(i === 0 ? { refused: true } : {}),
      }),
    ),
    { path: `configs/${name}`, type: 'symlink', target: `u${hops}${target}` },
  ];
}

/** The ways a layer can try to leave the directory it is unpacked into, each beside an honest catalog file. */
export const ESCAPING_LAYERS: Readonly<Record<string, readonly RawEntry[]>> = {
  'a ../ path': [
    { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
    { path: 'configs/../../escaped.yaml', type: 'file', content: PACKAGE },
  ],
  'an absolute path': [
    { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
    { path: '/tmp/escaped.yaml', type: 'file', content: PACKAGE },
  ],
  'a symlink pointing out': [
    { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
    { path: 'configs/host', type: 'symlink', target: '/etc' },
  ],
  'a relative symlink climbing out': [
    { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
    { path: 'configs/demo/up', type: 'symlink', target: '../../../..' },
  ],
  'a hard link to a path outside': [
    { path: 'configs/demo/catalog.yaml', type: 'file', content: PACKAGE },
    { path: 'configs/passwd', type: 'hardlink', target: '../../../etc/passwd' },
  ],
  'a chain of links to / reading a host file': climbToSlash('passwd.yaml', '/etc/passwd'),
  'a chain of links to /dev/zero': climbToSlash('zero.json', '/dev/zero'),
};

/** A catalog image (configs label set) whose only layer is `entries`. */
export function catalogImageOf(entries: readonly RawEntry[]): OciImage {
  return buildImage([rawLayer(entries)], {
    labels: { 'operators.operatorframework.io.index.configs.v1': '/configs' },
  });
}

/** A bundle image (registry+v1 labels) whose only layer is `entries`. */
export function bundleImageOf(entries: readonly RawEntry[]): OciImage {
  return buildImage([rawLayer(entries)], {
    labels: {
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'demo',
      'operators.operatorframework.io.bundle.channels.v1': 'alpha',
    },
  });
}
