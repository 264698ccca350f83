import { describe, expect, it } from 'vitest';
import {
  apiServerConflictsByResource,
  apiServerWritesByResource,
  MetricsFormatError,
  requestCountsByMethod,
  requestDelta,
  requestTotals,
} from './prometheus-text.js';

// Shapes of both exporters: controller-runtime's client-go adapter (label order code, host, method) and our
// runtime's prom-client registry (code, method, host), each with HELP/TYPE lines and neighbouring metrics.
const CONTROLLER_RUNTIME = `# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:39213",method="GET"} 7
rest_client_requests_total{code="200",host="127.0.0.1:39213",method="PUT"} 120
rest_client_requests_total{code="201",host="127.0.0.1:39213",method="POST"} 20
rest_client_requests_total{code="409",host="127.0.0.1:39213",method="PUT"} 3
# HELP rest_client_request_duration_seconds Request latency in seconds.
rest_client_request_duration_seconds_bucket{host="127.0.0.1:39213",verb="GET",le="0.005"} 4
`;

const OPKIT = `# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",method="PATCH",host="127.0.0.1:39213"} 131
rest_client_requests_total{code="<error>",method="get",host="127.0.0.1:39213"} 1
rest_client_requests_total{code="201",method="POST",host="127.0.0.1:39213"} 1.19e2
`;

describe('requestCountsByMethod', () => {
  it('sums controller-runtime counters over codes, by verb', () => {
    expect(requestCountsByMethod(CONTROLLER_RUNTIME)).toEqual({ GET: 7, PUT: 123, POST: 20 });
  });

  it('reads our runtime’s label order, lower-case verbs and exponent values', () => {
    expect(requestCountsByMethod(OPKIT)).toEqual({ PATCH: 131, GET: 1, POST: 119 });
  });

  it('fails on a sample it cannot read instead of counting nothing', () => {
    expect(() => requestCountsByMethod('rest_client_requests_total{code="200",host="h"} 3')).toThrow(
      /no method label/,
    );
    expect(() => requestCountsByMethod('rest_client_requests_total{method="GET"} many')).toThrow(
      MetricsFormatError,
    );
    expect(() => requestCountsByMethod('rest_client_requests_total{method=GET} 1')).toThrow(/labels/);
  });
});

// The API server's own counter: every client's requests, by verb, group, resource and subresource; requests
// outside the resource API (health, OpenAPI) have no resource and their path as subresource.
const API_SERVER = `# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 722
apiserver_request_total{code="409",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 128
apiserver_request_total{code="201",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 200
apiserver_request_total{code="201",component="apiserver",dry_run="",group="events.k8s.io",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 500
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 300
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="LIST",version="v1"} 9
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/openapi/v3",verb="GET",version=""} 3
apiserver_request_total_other{verb="PUT",resource="pods"} 1
`;

describe('apiServerWritesByResource', () => {
  it('counts every client’s writes by resource and subresource, refused ones too, reads and paths apart', () => {
    expect(apiServerWritesByResource(API_SERVER)).toEqual({
      'deployments/status': 850,
      deployments: 200,
      events: 800,
    });
  });

  it('fails on a sample without a verb', () => {
    expect(() => apiServerWritesByResource('apiserver_request_total{resource="pods"} 1')).toThrow(/no verb/);
  });
});

describe('apiServerConflictsByResource', () => {
  it('counts the writes refused with 409 Conflict, by resource and subresource', () => {
    expect(apiServerConflictsByResource(API_SERVER)).toEqual({ 'deployments/status': 128 });
  });

  it('fails on a sample without a verb', () => {
    expect(() => apiServerConflictsByResource('apiserver_request_total{code="409"} 1')).toThrow(/no verb/);
  });
});

describe('requestDelta and requestTotals', () => {
  it('counts only what happened between two scrapes, writes apart', () => {
    const delta = requestDelta({ GET: 5, PUT: 10 }, { GET: 5, PUT: 14, POST: 2, DELETE: 1 });
    expect(delta).toEqual({ PUT: 4, POST: 2, DELETE: 1 });
    expect(requestTotals({ ...delta, GET: 3 })).toEqual({ total: 10, writes: 7 });
  });

  it('rejects counters that went down (an operator restart would be miscounted)', () => {
    expect(() => requestDelta({ PUT: 10 }, { PUT: 9 })).toThrow(/went down/);
  });
});
