import { describe, expect, it } from 'vitest';
import { RuntimeMetrics } from '../../metrics/runtime-metrics.js';
import { FakeClock } from './clock.js';
import { prometheusQueueMetrics } from './metrics.js';
import { WorkQueue } from './work-queue.js';

async function values(metric: { get(): Promise<{ values: { labels: object; value: number }[] }> }) {
  return (await metric.get()).values.map(({ labels, value }) => ({ labels, value }));
}

describe('prometheusQueueMetrics', () => {
  it('starts every counter and the default-priority depth at 0', async () => {
    const metrics = new RuntimeMetrics({ processMetrics: false });
    prometheusQueueMetrics(metrics, 'deployments');
    const labels = { name: 'deployments', controller: 'deployments' };
    expect(await values(metrics.queueAdds)).toEqual([{ labels, value: 0 }]);
    expect(await values(metrics.queueRetries)).toEqual([{ labels, value: 0 }]);
    expect(await values(metrics.queueDepth)).toEqual([{ labels: { ...labels, priority: '0' }, value: 0 }]);
  });

  it("maps the queue's hooks onto the workqueue series, labelled with the controller", async () => {
    const metrics = new RuntimeMetrics({ processMetrics: false });
    const clock = new FakeClock();
    const queue = new WorkQueue({ name: 'pods', clock, metrics: prometheusQueueMetrics(metrics, 'pods') });
    const labels = { name: 'pods', controller: 'pods' };

    queue.add('a', { priority: 10 });
    queue.add('b');
    queue.addAfter('c', 1_000);
    expect(await values(metrics.queueAdds)).toEqual([{ labels, value: 2 }]);
    expect(await values(metrics.queueRetries)).toEqual([{ labels, value: 1 }]);
    expect(await values(metrics.queueDepth)).toEqual([
      { labels: { ...labels, priority: '0' }, value: 1 },
      { labels: { ...labels, priority: '10' }, value: 1 },
    ]);

    clock.advance(500);
    await queue.get();
    clock.advance(2_000);
    queue.done('a');
    const text = await metrics.registry.metrics();
    expect(text).toContain('workqueue_depth{name="pods",controller="pods",priority="10"} 0');
    expect(text).toContain('workqueue_queue_duration_seconds_sum{name="pods",controller="pods"} 0.5');
    expect(text).toContain('workqueue_work_duration_seconds_sum{name="pods",controller="pods"} 2');
  });

  it('reports in-flight work when scraped, even while the queue is idle', async () => {
    const metrics = new RuntimeMetrics({ processMetrics: false });
    const clock = new FakeClock();
    const queue = new WorkQueue({ name: 'a', clock, metrics: prometheusQueueMetrics(metrics, 'a') });
    const other = new WorkQueue({ name: 'b', clock, metrics: prometheusQueueMetrics(metrics, 'b') });
    queue.add('x');
    queue.add('y');
    await queue.get();
    clock.advance(1_000);
    await queue.get();
    clock.advance(500);

    const text = await metrics.registry.metrics();
    expect(text).toContain('workqueue_unfinished_work_seconds{name="a",controller="a"} 2');
    expect(text).toContain('workqueue_longest_running_processor_seconds{name="a",controller="a"} 1.5');
    expect(text).toContain('workqueue_unfinished_work_seconds{name="b",controller="b"} 0');

    queue.done('x');
    queue.done('y');
    other.shutDown();
    expect(await values(metrics.unfinishedWork)).toEqual([
      { labels: { name: 'a', controller: 'a' }, value: 0 },
      { labels: { name: 'b', controller: 'b' }, value: 0 },
    ]);
  });
});
