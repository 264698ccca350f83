// Redis Cluster's data model as the operator reads it: hash slots, CLUSTER NODES lines, CLUSTER INFO fields.

/** Total hash slots of a Redis Cluster. */
export const SLOTS = 16384;

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let j = 0; j < 8; j++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/** CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with. */
export function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The hash slot of a key, honouring `{hash tags}`. */
export function keySlot(key: string | Buffer): number {
  let data = Buffer.isBuffer(key) ? key : Buffer.from(key);
  const open = data.indexOf('{');
  if (open >= 0) {
    const close = data.indexOf('}', open + 1);
    if (close > open + 1) data = data.subarray(open + 1, close);
  }
  return crc16(data) % SLOTS;
}

/** One line of CLUSTER NODES. */
export interface ClusterNode {
  readonly id: string;
  /** `ip:port` of the client port ('' when the node has no address yet). */
  readonly address: string;
  readonly ip: string;
  readonly flags: readonly string[];
  readonly myself: boolean;
  readonly role: 'primary' | 'replica';
  /** For a replica, the ID of its primary. */
  readonly primaryId: string | undefined;
  readonly connected: boolean;
  readonly configEpoch: number;
  /** Slots served, sorted. */
  readonly slots: readonly number[];
  /** Open slots: slot → node ID this node migrates it to. */
  readonly migrating: ReadonlyMap<number, string>;
  /** Open slots: slot → node ID this node imports it from. */
  readonly importing: ReadonlyMap<number, string>;
  /** fail, pfail, handshake or noaddr. */
  readonly failing: boolean;
  readonly handshake: boolean;
}

/** Parses the output of CLUSTER NODES. */
export function parseClusterNodes(text: string): ClusterNode[] {
  const nodes: ClusterNode[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(' ');
    if (fields.length < 8) continue;
    const [id, addr, flagText, primary, , , epoch, link, ...slotFields] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      ...string[],
    ];
    const flags = flagText.split(',');
    const address = addr.split('@')[0]!.split(',')[0]!;
    const ip = address.slice(0, address.lastIndexOf(':'));
    const slots: number[] = [];
    const migrating = new Map<number, string>();
    const importing = new Map<number, string>();
    for (const field of slotFields) {
      const open = field.match(/^\[(\d+)-([<>])-([0-9a-f]+)\]$/);
      if (open) {
        (open[2] === '>' ? migrating : importing).set(Number(open[1]), open[3]!);
        continue;
      }
      const [from, to] = field.split('-').map(Number) as [number, number | undefined];
      for (let s = from; s <= (to ?? from); s++) slots.push(s);
    }
    nodes.push({
      id,
      address: ip ? address : '',
      ip,
      flags,
      myself: flags.includes('myself'),
      role: flags.includes('slave') ? 'replica' : 'primary',
      primaryId: primary === '-' ? undefined : primary,
      connected: link === 'connected',
      configEpoch: Number(epoch),
      slots: slots.sort((a, b) => a - b),
      migrating,
      importing,
      failing: flags.some((f) => f === 'fail' || f === 'fail?' || f === 'noaddr' || f === 'handshake'),
      handshake: flags.includes('handshake'),
    });
  }
  return nodes;
}

/** Parses CLUSTER INFO (or INFO) into its fields. */
export function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) out[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return out;
}

/** Sorted slots as ranges: [[0, 5460], [5462, 5462]]. */
export function toRanges(slots: readonly number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const s of slots) {
    const last = ranges.at(-1);
    if (last && last[1] === s - 1) last[1] = s;
    else ranges.push([s, s]);
  }
  return ranges;
}

/** Ranges as Redis prints them: `0-5460 5462`. */
export function formatRanges(slots: readonly number[]): string {
  return toRanges(slots)
    .map(([a, b]) => (a === b ? String(a) : `${a}-${b}`))
    .join(' ');
}

/** The slots primary `index` of `count` owns in an even split: consecutive, sizes differing by at most one. */
export function evenShare(index: number, count: number): [number, number] {
  const from = Math.floor((index * SLOTS) / count);
  const to = Math.floor(((index + 1) * SLOTS) / count) - 1;
  return [from, to];
}
