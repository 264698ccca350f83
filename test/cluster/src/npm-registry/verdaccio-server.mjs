// The Verdaccio process of `startNpmRegistry`: Verdaccio's own server from its configuration file, listening on
// loopback on a port the kernel picks (no race for a port), with bounded timeouts and connections. Reports
// the port to its parent over IPC and stops on SIGTERM or when its parent is gone.
import { runServer } from 'verdaccio';

const [configPath] = process.argv.slice(2);
const server = await runServer(configPath);
server.headersTimeout = 20_000;
server.requestTimeout = 120_000;
server.keepAliveTimeout = 5_000;
server.maxConnections = 256;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: server.address().port });
});
// A parent that dies without stopping it closes the IPC channel: the registry goes with it.
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
