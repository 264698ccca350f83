/**
 * Maps paths inside the container (volume mount paths) to the directories that back them on the host.
 * Process-backed pods share the host's filesystem, so every path a container would see through a mount is
 * rewritten in its arguments, environment and config files.
 */
export class PathMap {
  readonly #mounts: { containerPath: string; hostPath: string }[];

  constructor(mounts: readonly { containerPath: string; hostPath: string }[]) {
    // Longest mount first, so /data/conf wins over /data.
    this.#mounts = [...mounts]
      .map((m) => ({ containerPath: m.containerPath.replace(/\/+$/, '') || '/', hostPath: m.hostPath }))
      .sort((a, b) => b.containerPath.length - a.containerPath.length);
  }

  /** A single path: `/data/appendonly.aof` → `<host dir>/appendonly.aof`; unmapped paths are unchanged. */
  path(value: string): string {
    for (const { containerPath, hostPath } of this.#mounts) {
      if (value === containerPath) return hostPath;
      if (value.startsWith(`${containerPath}/`)) return hostPath + value.slice(containerPath.length);
    }
    return value;
  }

  /** An argument: a path, or `--flag=/path`. */
  argument(value: string): string {
    const eq = value.indexOf('=');
    if (value.startsWith('-') && eq > 0) return `${value.slice(0, eq + 1)}${this.path(value.slice(eq + 1))}`;
    return this.path(value);
  }

  /** Free text such as a config file: every whole-token occurrence of a mount path is rewritten. */
  text(value: string): string {
    let out = value;
    for (const { containerPath, hostPath } of this.#mounts) {
      if (containerPath === '/') continue;
      const escaped = containerPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      out = out.replace(
        new RegExp(`(^|[\\s"'=:])${escaped}(?=$|[\\s/"'])`, 'gm'),
        (_m, lead: string) => lead + hostPath,
      );
    }
    return out;
  }
}
