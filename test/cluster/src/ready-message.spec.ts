import { describe, expect, it } from 'vitest';
import { parseReadyLines, readyLines } from './ready-message.js';

const state = { name: 'default', pid: 1, kubeconfig: '/tmp/c/admin.kubeconfig', dir: '/tmp/c', server: 'x' };

describe('what opkit-cluster up prints once the cluster is ready', () => {
  it('with a real node: the kubeconfig, the registry, the base image for operators and how to deploy one', () => {
    const lines = readyLines({
      ...state,
      registry: '127.0.0.1:40123',
      baseImage: '127.0.0.1:40123/opkit/node:24.11.1',
    });
    expect(lines).toEqual([
      'kubeconfig: /tmp/c/admin.kubeconfig',
      'registry: 127.0.0.1:40123 (plain HTTP on this machine; the node pulls from it)',
      'base image for operators: 127.0.0.1:40123/opkit/node:24.11.1',
      'try: export KUBECONFIG=/tmp/c/admin.kubeconfig; kubectl get nodes,pods -A',
      expect.stringMatching(
        /^deploy an operator: nx run <project>:deploy, or opkit deploy --operator <dir> /,
      ),
    ]);
  });

  it('without a registry (kwok only): the kubeconfig and how to use it', () => {
    expect(readyLines(state)).toEqual([
      'kubeconfig: /tmp/c/admin.kubeconfig',
      'try: export KUBECONFIG=/tmp/c/admin.kubeconfig; kubectl get nodes,pods -A',
    ]);
  });

  it("reads back from up's output as what it printed, after the progress lines", () => {
    const printed = { registry: '127.0.0.1:40123', baseImage: '127.0.0.1:40123/opkit/node:24.11.1' };
    const output = ['starting etcd', ...readyLines({ ...state, ...printed }), ''].join('\n');
    expect(parseReadyLines(output)).toEqual({ kubeconfig: '/tmp/c/admin.kubeconfig', ...printed });
    expect(parseReadyLines(readyLines(state).join('\n'))).toEqual({ kubeconfig: '/tmp/c/admin.kubeconfig' });
    expect(parseReadyLines('opkit-cluster: the cluster did not start')).toBeUndefined();
  });
});
