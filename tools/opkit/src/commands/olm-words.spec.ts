import { ApiError, ConnectionError, KubeconfigError } from '@opkit/controller-runtime/client';
import { describe, expect, it } from 'vitest';
import { reportLine } from '../cli-error.js';
import { inOlmWords } from './olm-words.js';

describe('olm commands: cluster failures in the words they have always printed', () => {
  it('an API error is `METHOD path: HTTP status: message`', () => {
    const error = new ApiError(
      403,
      'Forbidden',
      'GET /api/v1/namespaces/olm: 403 Forbidden: namespaces "olm" is forbidden',
      'GET',
      '/api/v1/namespaces/olm',
      'namespaces "olm" is forbidden',
    );
    const mapped = inOlmWords(error) as Error & { code: string };
    expect(mapped.code).toBe('OLM_KUBE_API');
    expect(reportLine(mapped)).toBe('GET /api/v1/namespaces/olm: HTTP 403: namespaces "olm" is forbidden');
  });

  it("a server not reached is the socket's own error; a kubeconfig's failure and others pass through", () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    expect(inOlmWords(new ConnectionError(`GET /api: ${socket.message}`, { cause: socket }))).toBe(socket);
    const kubeconfig = new KubeconfigError('exec plugin x: not found', { cause: socket });
    expect(inOlmWords(kubeconfig)).toBe(kubeconfig);
    const other = new Error('other');
    expect(inOlmWords(other)).toBe(other);
  });
});
