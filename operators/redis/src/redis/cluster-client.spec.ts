import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterClient } from './cluster-client.js';

/** Commands as a node received them, in order. */
type Received = string[][];

/** Reads RESP arrays of bulk strings (what a client sends) from `buffer`; returns those complete and the rest. */
function commands(buffer: string): { parsed: string[][]; rest: string } {
  const parsed: string[][] = [];
  let at = 0;
  for (;;) {
    const header = /^\*(\d+)\r\n/.exec(buffer.slice(at));
    if (!header) break;
    let cursor = at + header[0].length;
    const args: string[] = [];
    for (let i = 0; i < Number(header[1]); i++) {
      const length = /^\$(\d+)\r\n/.exec(buffer.slice(cursor));
      if (!length) return { parsed, rest: buffer.slice(at) };
      const start = cursor + length[0].length;
      if (buffer.length < start + Number(length[1]) + 2) return { parsed, rest: buffer.slice(at) };
      args.push(buffer.slice(start, start + Number(length[1])));
      cursor = start + Number(length[1]) + 2;
    }
    parsed.push(args);
    at = cursor;
  }
  return { parsed, rest: buffer.slice(at) };
}

/** A node that answers each command with `reply(args)` (raw RESP) and records what it received. */
async function fakeNode(
  reply: (args: string[]) => string,
): Promise<{ server: Server; address: string; received: Received }> {
  const received: Received = [];
  const server = createServer((socket) => {
    let pending = '';
    socket.on('data', (chunk) => {
      const { parsed, rest } = commands(pending + chunk.toString('latin1'));
      pending = rest;
      for (const args of parsed) {
        received.push(args);
        socket.write(reply(args));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return { server, address: `127.0.0.1:${port}`, received };
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe('ClusterClient.setReplicated', () => {
  it('sends WAIT right behind SET on the node that took the write, after a MOVED, and returns its count', async () => {
    const owner = await fakeNode((args) => {
      if (args[0] === 'SET') return '+OK\r\n';
      if (args[0] === 'WAIT') return ':1\r\n';
      return '-ERR unexpected\r\n';
    });
    let port = 0;
    // It still claims every slot, as a node does before the news of a move reached it.
    const stale = await fakeNode((args) => {
      if (args[0] === 'SET') return `-MOVED 12539 ${owner.address}\r\n`;
      if (args[0] === 'WAIT') return ':0\r\n';
      if (args[0] === 'CLUSTER') return `*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:${port}\r\n`;
      return '-ERR unexpected\r\n';
    });
    port = Number(stale.address.split(':')[1]);
    servers.push(owner.server, stale.server);
    const client = new ClusterClient([stale.address]);
    await client.refresh();
    const first = stale.received.length;
    try {
      expect(await client.setReplicated('key', 'value', 1, 500)).toBe(1);
    } finally {
      client.close();
    }
    expect(owner.received).toEqual([
      ['SET', 'key', 'value'],
      ['WAIT', '1', '500'],
    ]);
    expect(stale.received.slice(first, first + 2)).toEqual([
      ['SET', 'key', 'value'],
      ['WAIT', '1', '500'],
    ]);
    expect(client.redirections.moved).toBe(1);
  });

  it('says 0 when no replica confirmed the write in time', async () => {
    const node = await fakeNode((args) => {
      if (args[0] === 'SET') return '+OK\r\n';
      if (args[0] === 'WAIT') return ':0\r\n';
      if (args[0] === 'CLUSTER') return '*0\r\n';
      return '-ERR unexpected\r\n';
    });
    servers.push(node.server);
    const client = new ClusterClient([node.address], { maxAttempts: 2 });
    try {
      expect(await client.setReplicated('key', 'value')).toBe(0);
    } finally {
      client.close();
    }
  });
});
