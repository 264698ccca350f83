import { Command } from 'commander';

/** The manager flags of a kubebuilder-scaffolded operator, with the same names and defaults. */
export interface ManagerFlags {
  readonly metricsBindAddress: string;
  readonly healthProbeBindAddress: string;
  readonly leaderElect: boolean;
  readonly kubeconfig?: string;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/**
 * A commander program with the scaffold's flags (`--metrics-bind-address`, `--health-probe-bind-address`,
 * `--leader-elect`) plus `--kubeconfig` and `--log-level`. Parse it and pass the result to the manager.
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
      '--health-probe-bind-address <address>',
      'address the /healthz and /readyz probes bind to',
      ':8081',
    )
    .option('--leader-elect', 'enable leader election, so only one replica reconciles at a time', false)
    .option('--kubeconfig <path>', 'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .showHelpAfterError();
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
