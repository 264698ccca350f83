import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listeningAddress } from './webhook-bench.js';

// The webhook bench waits for its server to listen: a server that fails to start ends the wait with its error
// instead of leaving the bench polling forever.

describe('listeningAddress', () => {
  it('GIVEN a server whose start fails THEN the wait ends with the start error', async () => {
    const failed = Promise.reject(new Error('listen EADDRINUSE 127.0.0.1:9443'));
    await expect(listeningAddress({ address: undefined }, failed)).rejects.toThrow(
      'listen EADDRINUSE 127.0.0.1:9443',
    );
    await expect(listeningAddress({ address: undefined }, Promise.resolve())).rejects.toThrow(
      'the webhook server stopped before it listened',
    );
  });

  it('GIVEN a server that listens after a while THEN the wait gives its address', async () => {
    const server: { address: AddressInfo | undefined } = { address: undefined };
    setTimeout(() => {
      server.address = { address: '127.0.0.1', family: 'IPv4', port: 9443 };
    }, 20);
    expect(await listeningAddress(server, new Promise(() => {}))).toEqual({
      address: '127.0.0.1',
      family: 'IPv4',
      port: 9443,
    });
  });
});
