import { existsSync, readFileSync } from 'node:fs';
import { HostProgramError } from '../errors.js';

/**
 * A real program from the host that stands in for a container image. The pod's command and args are honoured;
 * only the listen address is forced to the pod's IP so pods on one machine do not collide.
 */
export interface HostProgram {
  /** The image name this program backs (the last path segment of the image, without tag or digest). */
  readonly image: string;
  /** Executable names a container command may use for this program, as in the image. */
  readonly executables: readonly string[];
  readonly binary: string;
  readonly debianPackage: string;
  readonly defaultPort: number;
  /** The argv the image would run when the pod gives only `args` (or nothing), as its entrypoint does. */
  defaultArgv(args: readonly string[]): string[];
  /** Rewrites the arguments (after argv[0]) so the server listens on `ip`; returns them and the port. */
  bindTo(
    args: readonly string[],
    ip: string,
    readFile: (path: string) => string | undefined,
  ): {
    args: string[];
    port: number;
  };
}

function flagValue(args: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    for (const name of names) {
      if (arg === name) return args[i + 1];
      if (name.startsWith('--') && arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
      if (!name.startsWith('--') && arg.startsWith(name) && arg.length > name.length)
        return arg.slice(name.length);
    }
  }
  return undefined;
}

function withoutFlag(args: readonly string[], names: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (names.includes(arg)) {
      i++;
      continue;
    }
    if (
      names.some((n) =>
        n.startsWith('--') ? arg.startsWith(`${n}=`) : arg.startsWith(n) && arg.length > n.length,
      )
    )
      continue;
    out.push(arg);
  }
  return out;
}

export const memcachedProgram: HostProgram = {
  image: 'memcached',
  executables: ['memcached'],
  binary: '/usr/bin/memcached',
  debianPackage: 'memcached',
  defaultPort: 11211,
  // The official image's entrypoint prepends `memcached` when the first argument is a flag.
  defaultArgv: (args) =>
    args.length === 0 ? ['memcached'] : args[0]!.startsWith('-') ? ['memcached', ...args] : [...args],
  bindTo(args, ip) {
    const port = Number(flagValue(args, ['-p', '--port']) ?? 11211);
    const rest = withoutFlag(args, ['-l', '--listen']);
    // memcached refuses to start as root unless told which user to run as.
    const user =
      process.getuid?.() === 0 && flagValue(args, ['-u', '--user']) === undefined ? ['-u', 'root'] : [];
    return { args: [...rest, ...user, '-l', ip], port };
  },
};

export const redisProgram: HostProgram = {
  image: 'redis',
  executables: ['redis-server'],
  binary: '/usr/bin/redis-server',
  debianPackage: 'redis-server',
  defaultPort: 6379,
  // The official image's entrypoint prepends `redis-server` for a leading flag or a .conf file.
  defaultArgv: (args) =>
    args.length === 0
      ? ['redis-server']
      : args[0]!.startsWith('-') || args[0]!.endsWith('.conf')
        ? ['redis-server', ...args]
        : [...args],
  bindTo(args, ip, readFile) {
    let port = 6379;
    const config = args[0] && !args[0].startsWith('-') ? readFile(args[0]) : undefined;
    const fromConfig = config?.match(/^\s*port\s+(\d+)\s*$/m)?.[1];
    if (fromConfig) port = Number(fromConfig);
    const fromArgs = flagValue(args, ['--port']);
    if (fromArgs) port = Number(fromArgs);
    return { args: [...args, '--bind', ip, '--daemonize', 'no'], port };
  },
};

const programs: readonly HostProgram[] = [memcachedProgram, redisProgram];

/** The image's repository name: `docker.io/library/redis:7.2@sha256:…` → `redis`. */
export function imageName(image: string): string {
  const withoutDigest = image.split('@')[0]!;
  const last = withoutDigest.split('/').pop()!;
  return last.split(':')[0]!;
}

/** The host program that backs pods of this image, if any. */
export function hostProgramFor(image: string): HostProgram | undefined {
  const name = imageName(image);
  return programs.find((p) => name === p.image);
}

/** Fails early, with the install command, when a program that process-backed pods need is missing. */
export function assertHostProgramsInstalled(): void {
  for (const program of programs) {
    if (!existsSync(program.binary)) throw new HostProgramError(program.binary, program.debianPackage);
  }
}

export function readTextFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
