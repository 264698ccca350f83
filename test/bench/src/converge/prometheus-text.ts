// Reads API request counts out of a Prometheus text exposition. Both operators export client-go's
// `rest_client_requests_total{code,host,method}`: controller-runtime through its client-go adapter, ours from
// its transport. Counting on the operator's side sees exactly the operator's own requests, including watches
// and event writes, and nothing from the control plane or the benchmark's own client. The API server's
// `apiserver_request_total` counts everyone's: what the objects an operator owns cost the rest of the cluster.

/** HTTP verbs and their request counts. */
export type RequestCounts = Readonly<Record<string, number>>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export class MetricsFormatError extends Error {}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  const rest = text.replace(LABEL, (_, name: string, value: string) => {
    labels[name] = value.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    return '';
  });
  if (rest.replace(/[,\s]/g, '').length > 0) {
    throw new MetricsFormatError(`metrics line ${line}: cannot read the labels {${text}}`);
  }
  return labels;
}

/** The samples of one metric, each with its labels and value. */
function* samples(
  exposition: string,
  name: string,
): Generator<{ labels: Record<string, string>; value: number; line: number }> {
  const lines = exposition.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line.startsWith(name)) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new MetricsFormatError(`metrics line ${i + 1}: not a sample: ${line}`);
    if (match[1] !== name) continue; // another metric whose name starts the same way
    const labels = parseLabels(match[2] ?? '', i + 1);
    const value = Number(match[3]);
    if (!Number.isFinite(value)) throw new MetricsFormatError(`metrics line ${i + 1}: bad value ${match[3]}`);
    yield { labels, value, line: i + 1 };
  }
}

/**
 * Sums `rest_client_requests_total` by `method` (upper-cased), over all codes and hosts. Throws when a line
 * of that metric cannot be read, so a format change fails loudly instead of counting zero.
 */
export function requestCountsByMethod(exposition: string): RequestCounts {
  const counts: Record<string, number> = {};
  for (const { labels, value, line } of samples(exposition, 'rest_client_requests_total')) {
    const method = labels.method?.toUpperCase();
    if (!method) throw new MetricsFormatError(`metrics line ${line}: no method label`);
    counts[method] = (counts[method] ?? 0) + value;
  }
  return counts;
}

/** The API server's verbs that change what is stored (`APPLY` is a server-side apply PATCH). */
const API_SERVER_WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'DELETECOLLECTION']);

/**
 * The writes the API server answered, whoever sent them (every controller, the scheduler, the nodes, the
 * operator), from its `apiserver_request_total`: summed over codes (a refused write costs the server too)
 * and groups, by `resource` or `resource/subresource`.
 */
export function apiServerWritesByResource(exposition: string): RequestCounts {
  return writesByResource(exposition, () => true);
}

/**
 * The writes among those the API server refused with `409 Conflict`, by `resource` or `resource/subresource`:
 * an update sent with a `resourceVersion` its object had already moved past, so its sender read the object
 * again and sent it once more. They are in {@link apiServerWritesByResource}'s counts too.
 */
export function apiServerConflictsByResource(exposition: string): RequestCounts {
  return writesByResource(exposition, (code) => code === '409');
}

function writesByResource(exposition: string, counted: (code: string | undefined) => boolean): RequestCounts {
  const counts: Record<string, number> = {};
  for (const { labels, value, line } of samples(exposition, 'apiserver_request_total')) {
    if (labels.verb === undefined) throw new MetricsFormatError(`metrics line ${line}: no verb label`);
    if (!API_SERVER_WRITE_VERBS.has(labels.verb) || !labels.resource || !counted(labels.code)) continue;
    const key = labels.subresource ? `${labels.resource}/${labels.subresource}` : labels.resource;
    counts[key] = (counts[key] ?? 0) + value;
  }
  return counts;
}

/** `after - before` per key (verb or resource); keys that appear only later count from 0. */
export function requestDelta(before: RequestCounts, after: RequestCounts): RequestCounts {
  const delta: Record<string, number> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[key] ?? 0) - (before[key] ?? 0);
    if (d < 0) throw new MetricsFormatError(`the request counter for ${key} went down`);
    if (d > 0) delta[key] = d;
  }
  return delta;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Totals of a delta: all requests, and writes (POST, PUT, PATCH, DELETE). */
export function requestTotals(counts: RequestCounts): { total: number; writes: number } {
  let total = 0;
  let writes = 0;
  for (const [method, n] of Object.entries(counts)) {
    total += n;
    if (WRITE_METHODS.has(method)) writes += n;
  }
  return { total, writes };
}
