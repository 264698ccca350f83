import { Command, InvalidArgumentError } from 'commander';

/** The manager flags of a kubebuilder-scaffolded operator, with the same names and defaults. */
export interface ManagerFlags {
  readonly metricsBindAddress: string;
  readonly metricsSecure: boolean;
  readonly metricsCertPath?: string;
  readonly healthProbeBindAddress: string;
  readonly webhookPort: number;
  readonly webhookCertPath: string;
  readonly webhookCertName: string;
  readonly webhookCertKey: string;
  readonly leaderElect: boolean;
  /** With `--leader-elect`: `lease` (renewed Lease) or `for-life` (a ConfigMap owned by the leader's Pod). */
  readonly leaderElectionMode: LeaderElectionMode;
  readonly kubeconfig?: string;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/**
 * A commander program with the scaffold's flags (`--metrics-bind-address`, `--metrics-secure`,
 * `--metrics-cert-path`, `--health-probe-bind-address`, `--leader-elect`) plus `--kubeconfig` and `--log-level`. Parse it and pass the result to the manager.
 */
export function managerCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .option(
      '--metrics-bind-address <address>',
      'address the metrics endpoint binds to, e.g. :8080 or 127.0.0.1:8080; "0" disables it',
      '0',
    )
    .option(
      '--metrics-secure [bool]',
      'serve metrics over HTTPS to authenticated, authorized callers only; --metrics-secure=false for plain HTTP',
      parseBool('--metrics-secure'),
      true,
    )
    .option(
      '--metrics-cert-path <dir>',
      'directory with tls.crt and tls.key for the metrics server (default: a self-signed certificate)',
    )
    .option(
      '--health-probe-bind-address <address>',
      'address the /healthz and /readyz probes bind to',
      ':8081',
    )
    .option(
      '--webhook-port <port>',
      'port the webhook server listens on (HTTPS)',
      parsePort('--webhook-port'),
      9443,
    )
    .option(
      '--webhook-cert-path <dir>',
      'directory with the webhook server certificate (reloaded when it changes)',
      '/tmp/k8s-webhook-server/serving-certs',
    )
    .option('--webhook-cert-name <file>', 'webhook certificate file name', 'tls.crt')
    .option('--webhook-cert-key <file>', 'webhook key file name', 'tls.key')
    .option('--leader-elect', 'enable leader election, so only one replica reconciles at a time', false)
    .option(
      '--leader-election-mode <mode>',
      'with --leader-elect: "lease" (renewed Lease, fast hand-over) or "for-life" (the leader leads until its Pod is gone)',
      parseLeaderElectionMode,
      'lease',
    )
    .option('--kubeconfig <path>', 'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .showHelpAfterError();
}

export type LeaderElectionMode = 'lease' | 'for-life';

function parseLeaderElectionMode(value: string): LeaderElectionMode {
  if (value === 'lease' || value === 'for-life') return value;
  throw new InvalidArgumentError(`--leader-election-mode takes lease or for-life, not "${value}"`);
}

function parsePort(flag: string): (value: string) => number {
  return (value) => {
    const port = Number(value);
    if (!/^[0-9]+$/.test(value) || port < 1 || port > 65535) {
      throw new InvalidArgumentError(`${flag} takes a port from 1 to 65535, not "${value}"`);
    }
    return port;
  };
}

/** Go's boolean flag values: `--flag`, `--flag=true|false|1|0`. */
function parseBool(flag: string): (value: string | boolean) => boolean {
  return (value) => {
    if (value === true || value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    throw new InvalidArgumentError(`${flag} takes true or false, not "${String(value)}"`);
  };
}

export function parseManagerFlags(command: Command): ManagerFlags {
  const o = command.opts<ManagerFlags>();
  if (!['debug', 'info', 'warn', 'error'].includes(o.logLevel)) {
    command.error(
      `error: option '--log-level <level>' must be debug, info, warn or error (got "${o.logLevel}")`,
    );
  }
  return o;
}
