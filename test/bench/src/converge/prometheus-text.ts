// Reads API request counts out of a Prometheus text exposition. Both operators export client-go's
// `rest_client_requests_total{code,host,method}`: controller-runtime through its client-go adapter, ours from
// its transport. Counting on the operator's side sees exactly the operator's own requests, including watches
// and event writes, and nothing from the control plane or the benchmark's own client.

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

/**
 * Sums `rest_client_requests_total` by `method` (upper-cased), over all codes and hosts. Throws when a line
 * of that metric cannot be read, so a format change fails loudly instead of counting zero.
 */
export function requestCountsByMethod(exposition: string): RequestCounts {
  const counts: Record<string, number> = {};
  const lines = exposition.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line.startsWith('rest_client_requests_total')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new MetricsFormatError(`metrics line ${i + 1}: not a sample: ${line}`);
    if (match[1] !== 'rest_client_requests_total') continue; // another metric whose name starts the same way
    const labels = parseLabels(match[2] ?? '', i + 1);
    const value = Number(match[3]);
    if (!Number.isFinite(value)) throw new MetricsFormatError(`metrics line ${i + 1}: bad value ${match[3]}`);
    const method = labels.method?.toUpperCase();
    if (!method) throw new MetricsFormatError(`metrics line ${i + 1}: no method label`);
    counts[method] = (counts[method] ?? 0) + value;
  }
  return counts;
}

/** `after - before` per verb; verbs that appear only later count from 0. */
export function requestDelta(before: RequestCounts, after: RequestCounts): RequestCounts {
  const delta: Record<string, number> = {};
  for (const method of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[method] ?? 0) - (before[method] ?? 0);
    if (d < 0) throw new MetricsFormatError(`rest_client_requests_total{method="${method}"} went down`);
    if (d > 0) delta[method] = d;
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
