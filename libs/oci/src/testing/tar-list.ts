import { gunzipSync } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';

/** One tar entry as read back by the independent `tar` package. */
export interface ListedEntry {
  readonly path: string;
  readonly type: string;
  readonly mode: number | undefined;
  readonly uid: number | undefined;
  readonly gid: number | undefined;
  readonly mtime: number | undefined;
  readonly size: number;
  readonly linkpath: string | undefined;
  readonly content: string;
}

/** Lists a (gzip-compressed when `gzip`) tarball with the `tar` package, for checking what we wrote. */
export async function listTar(bytes: Uint8Array, gzip = true): Promise<ListedEntry[]> {
  const tar = gzip ? gunzipSync(bytes) : Buffer.from(bytes);
  const entries: ListedEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () =>
          entries.push({
            path: entry.path,
            type: entry.type,
            mode: entry.mode,
            uid: entry.uid,
            gid: entry.gid,
            mtime: entry.mtime === undefined ? undefined : entry.mtime.getTime() / 1000,
            size: entry.size,
            linkpath: entry.linkpath,
            content: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    });
    parser.on('error', reject);
    parser.on('end', () => resolve());
    parser.end(tar);
  });
  return entries;
}
