import { describe, expect, it, vi } from 'vitest';
import { RuntimeMetrics } from './runtime-metrics.js';

describe('the process metrics', () => {
  it('sample the event loop delay every 100 ms, so an idle operator is not woken 100 times a second', async () => {
    const perfHooks = process.getBuiltinModule('node:perf_hooks');
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const metrics = new RuntimeMetrics();
      expect(monitor.mock.calls.map(([options]) => options?.resolution)).toEqual([100]);
      const exposed = await metrics.registry.metrics();
      expect(exposed).toContain('nodejs_eventloop_lag_p99_seconds');
      expect(exposed).toContain('process_cpu_seconds_total');
    } finally {
      monitor.mockRestore();
    }
  });
});
