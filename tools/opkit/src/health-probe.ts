// grpc_health_probe for catalog images: what OLM's registry pod runs as its readiness, liveness and startup
// probe (`grpc_health_probe -addr=:50051`). Exit codes as the original's: 0 SERVING, 1 bad arguments,
// 2 no connection, 3 the call failed, 4 not SERVING.
import { checkHealth, ServingStatus } from '@opkit/olm/registry';

function address(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const match = /^--?addr(?:=(.*))?$/.exec(arg);
    if (!match) continue;
    const value = match[1] ?? argv[i + 1];
    if (!value) return undefined;
    // `:50051` means this host, as in Go's dialer.
    return value.startsWith(':') ? `127.0.0.1${value}` : value;
  }
  return undefined;
}

const target = address(process.argv.slice(2));
if (!target) {
  process.stderr.write('usage: grpc_health_probe -addr=[host]:port\n');
  process.exit(1);
}
try {
  const status = await checkHealth(target, 1000);
  if (status === ServingStatus.SERVING) {
    process.stdout.write('status: SERVING\n');
    process.exit(0);
  }
  process.stderr.write(`service unhealthy (responded with ${status})\n`);
  process.exit(4);
} catch (error) {
  const code = (error as { code?: number }).code;
  // gRPC status 14 (UNAVAILABLE) and 4 (DEADLINE_EXCEEDED) are what an unreachable server gives.
  process.stderr.write(`health rpc failed: ${(error as Error).message}\n`);
  process.exit(code === 14 || code === 4 ? 2 : 3);
}
