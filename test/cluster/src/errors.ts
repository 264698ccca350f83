/**
 * Errors of the local control plane. Each has a stable `code` and a one-line message that says what to do,
 * so the CLI can print it without a stack trace.
 */
export class ClusterError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** No usable Go toolchain for building the control-plane components. */
export class GoToolchainError extends ClusterError {
  constructor(message: string) {
    super('CLUSTER_GO_TOOLCHAIN', message);
  }
}

/** A component failed to build from its Go module. */
export class ComponentBuildError extends ClusterError {
  constructor(
    readonly component: string,
    readonly logFile: string,
    detail: string,
  ) {
    super('CLUSTER_BUILD_FAILED', `building ${component} failed: ${detail} (full log: ${logFile})`);
  }
}

/** A port the caller asked for is already in use. */
export class PortInUseError extends ClusterError {
  constructor(
    readonly port: number,
    readonly purpose: string,
  ) {
    super(
      'CLUSTER_PORT_IN_USE',
      `port ${port} on 127.0.0.1 (${purpose}) is already in use: stop what listens there or leave the port unset to pick a free one`,
    );
  }
}

/** A component did not become ready, or exited while starting. */
export class ComponentStartError extends ClusterError {
  constructor(
    readonly component: string,
    readonly logFile: string,
    detail: string,
  ) {
    super('CLUSTER_START_FAILED', `${component} did not start: ${detail} (log: ${logFile})`);
  }
}
