import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../internal/transport/kubeconfig.js';
import { createLogger } from '../log/index.js';
import { managerCommand } from './flags.js';
import { operatorManager, runOperatorMain } from './operator-main.js';

afterEach(() => {
  process.exitCode = undefined;
});

// A kubeconfig to load; nothing connects to it before the operator's own code runs.
const dir = mkdtempSync(join(tmpdir(), 'opkit-operator-main-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(
  kubeconfig,
  `current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u, user: {token: t}}]
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runOperatorMain', () => {
  it('logs why the manager could not start and exits non-zero', async () => {
    const lines: string[] = [];
    await runOperatorMain({
      name: 'widget-operator',
      description: 'Runs widgets.',
      argv: ['node', 'main.js', '--kubeconfig', '/nonexistent/kubeconfig'],
      create: () => {
        throw new Error('create must not be reached');
      },
      logSink: (line) => lines.push(line),
    });
    expect(process.exitCode).toBe(1);
    const failure = JSON.parse(lines.at(-1)!) as { level: string; msg: string; logger: string };
    expect(failure).toMatchObject({ level: 'error', msg: 'manager failed', logger: 'widget-operator' });
    expect(lines.at(-1)).toContain('/nonexistent/kubeconfig');
  });

  it('hands the parsed manager flags to the operator', async () => {
    const lines: string[] = [];
    let seen: unknown;
    await runOperatorMain({
      name: 'widget-operator',
      description: 'Runs widgets.',
      argv: [
        'node',
        'main.js',
        '--kubeconfig',
        kubeconfig,
        '--leader-elect',
        '--health-probe-bind-address',
        '127.0.0.1:0',
        '--log-level',
        'debug',
      ],
      create: (options) => {
        seen = { leaderElect: options.leaderElect, probe: options.healthProbeBindAddress };
        throw new Error('stop here');
      },
      logSink: (line) => lines.push(line),
    });
    expect(seen).toEqual({ leaderElect: true, probe: '127.0.0.1:0' });
    expect(lines.at(-1)).toContain('stop here');
  });

  it('serves metrics securely unless told --metrics-secure=false, as the kubebuilder scaffold does', async () => {
    const secureness = async (...flags: string[]) => {
      let seen: unknown;
      await runOperatorMain({
        name: 'widget-operator',
        description: 'Runs widgets.',
        argv: ['node', 'main.js', '--kubeconfig', kubeconfig, '--metrics-bind-address=:8443', ...flags],
        create: (options) => {
          seen = { secure: options.metricsSecure, certPath: options.metricsCertPath };
          throw new Error('stop here');
        },
        logSink: () => {},
      });
      return seen;
    };
    expect(await secureness()).toEqual({ secure: true, certPath: undefined });
    expect(await secureness('--metrics-secure')).toEqual({ secure: true, certPath: undefined });
    expect(await secureness('--metrics-secure=false')).toEqual({ secure: false, certPath: undefined });
    expect(await secureness('--metrics-cert-path=/certs')).toEqual({ secure: true, certPath: '/certs' });
  });

  it('picks the leader election mode: lease unless --leader-election-mode or the program says for-life', async () => {
    const mode = async (programDefault: 'lease' | 'for-life' | undefined, ...flags: string[]) => {
      let seen: unknown;
      await runOperatorMain({
        name: 'widget-operator',
        description: 'Runs widgets.',
        argv: ['node', 'main.js', '--kubeconfig', kubeconfig, '--leader-elect', ...flags],
        ...(programDefault ? { leaderElectionMode: programDefault } : {}),
        create: (options) => {
          seen = options.leaderElectionMode;
          throw new Error('stop here');
        },
        logSink: () => {},
      });
      return seen;
    };
    expect(await mode(undefined)).toBe('lease');
    expect(await mode(undefined, '--leader-election-mode=for-life')).toBe('for-life');
    expect(await mode('for-life')).toBe('for-life');
    expect(await mode('for-life', '--leader-election-mode', 'lease')).toBe('lease');
    const command = managerCommand('widget-operator', 'Runs widgets.')
      .exitOverride()
      .configureOutput({ writeErr: () => {} });
    expect(() => command.parse(['node', 'main.js', '--leader-election-mode=forever'])).toThrow(
      '--leader-election-mode takes lease or for-life, not "forever"',
    );
  });
});

describe('operatorManager', () => {
  it('with leader for life outside a Pod (no POD_NAME), leads at once without asking the API server', async () => {
    const saved = process.env.POD_NAME;
    delete process.env.POD_NAME;
    const lines: string[] = [];
    const stop = new AbortController();
    try {
      const manager = operatorManager(
        {
          kubeConfig: loadKubeConfig(kubeconfig), // an API server that refuses every connection
          leaderElect: true,
          leaderElectionMode: 'for-life',
          namespace: 'operators',
          logger: createLogger({ sink: (line) => lines.push(line) }),
        },
        { name: 'widget-operator', leaderElectionId: 'widget-operator-lock' },
      );
      const running = manager.start(stop.signal);
      await manager.elected;
      stop.abort();
      await running;
    } finally {
      if (saved !== undefined) process.env.POD_NAME = saved;
    }
    const skipped = lines
      .map((l) => JSON.parse(l) as { msg: string })
      .filter((l) => l.msg.startsWith('leader for life skipped'));
    expect(skipped).toHaveLength(1);
  });
});
