import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeInChunks } from './render.js';

describe('writeInChunks', () => {
  /** A stream that keeps what each write gave it. */
  const recording = (): { out: Writable; writes: string[] } => {
    const writes: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        done();
      },
    });
    return { out, writes };
  };

  it('writes every document in order, small ones gathered into chunks below 128 KiB, not the whole at once', async () => {
    const { out, writes } = recording();
    const documents = Array.from(
      { length: 500 },
      (_, i) => `${String(i).padStart(3, '0')}${'x'.repeat(1_000)}\n`,
    );
    await writeInChunks(out, documents);
    expect(writes.join('')).toBe(documents.join(''));
    expect(writes.length).toBeGreaterThan(3);
    expect(writes.length).toBeLessThan(20);
    // Each chunk stays below V8's large-object size, so that it dies young.
    expect(Math.max(...writes.map((w) => w.length))).toBeLessThan(128 * 1024);
  });

  it('writes a large document on its own, after the small ones before it', async () => {
    const { out, writes } = recording();
    const large = `${'y'.repeat(300_000)}\n`;
    await writeInChunks(out, ['a\n', 'b\n', large, 'c\n']);
    expect(writes).toEqual(['a\nb\n', large, 'c\n']);
  });

  it('waits for a full stream to drain before it writes more', async () => {
    const out = new PassThrough({ highWaterMark: 16 });
    const read: string[] = [];
    const writing = writeInChunks(out, ['a'.repeat(1 << 20), 'b'.repeat(1 << 20), 'c']);
    out.on('data', (d: Buffer) => read.push(d.toString()));
    await writing;
    out.end();
    await new Promise((resolve) => out.on('end', resolve));
    expect(read.join('')).toBe(`${'a'.repeat(1 << 20)}${'b'.repeat(1 << 20)}c`);
  });

  /** A stream that takes the first write and never finishes it: it will not drain until it is closed. */
  const stalled = (): Writable =>
    new Writable({
      highWaterMark: 16,
      write() {},
    });

  it('fails at once, in one line, when the output closes while it waits to drain', async () => {
    const out = stalled();
    const writing = writeInChunks(out, ['a'.repeat(1 << 20), 'b'.repeat(1 << 20)]);
    setImmediate(() => out.destroy());
    await expect(writing).rejects.toThrow(/^the output was closed before the catalog was written whole$/);
  }, 2_000);

  it('fails with the error of an output that errs while it waits to drain', async () => {
    const out = stalled();
    const writing = writeInChunks(out, ['a'.repeat(1 << 20), 'b'.repeat(1 << 20)]);
    setImmediate(() => out.destroy(new Error('write EPIPE')));
    await expect(writing).rejects.toThrow(/^write EPIPE$/);
  }, 2_000);

  it('does not write to an output already closed', async () => {
    const out = stalled();
    out.destroy();
    await expect(writeInChunks(out, ['a'])).rejects.toThrow(/output was closed/);
  });
});
