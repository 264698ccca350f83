// Whether a registry is on this machine: the only place `--plain-http` and a local registry talk plain HTTP.

/** Whether a registry host (`host[:port]`, `[v6]:port`) is on this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return name === 'localhost' || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}
