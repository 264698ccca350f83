import { Client, credentials } from '@grpc/grpc-js';
import { type HealthCheckResponse, ServingStatus } from './api.js';
import { HealthCheckRequest, HealthCheckResponse as HealthCheckResponseSchema } from './messages.js';
import { decodeMessage, encodeMessage } from './wire.js';

/** One `grpc.health.v1.Health/Check` call; resolves with the serving status, rejects on any gRPC error. */
export async function checkHealth(address: string, timeoutMs = 2000): Promise<number> {
  const client = new Client(address, credentials.createInsecure());
  try {
    return await new Promise<number>((resolve, reject) => {
      client.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (v: { service: string }) => encodeMessage(HealthCheckRequest, v),
        (b: Buffer) => decodeMessage<HealthCheckResponse>(HealthCheckResponseSchema, b),
        { service: '' },
        { deadline: Date.now() + timeoutMs },
        (err, res) => (err ? reject(err) : resolve(res!.status)),
      );
    });
  } finally {
    client.close();
  }
}

/** Polls the health service until it answers SERVING; rejects with the last error after `timeoutMs`. */
export async function waitForServing(address: string, timeoutMs = 30_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (
        (await checkHealth(address, Math.max(100, Math.min(2000, deadline - Date.now())))) ===
        ServingStatus.SERVING
      )
        return;
      last = new Error('not SERVING');
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`${address} did not answer SERVING within ${timeoutMs} ms: ${(last as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
