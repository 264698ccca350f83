// The few read calls of Prometheus' HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/) that
// tests make: scrape targets, alerts and instant queries.

/** One active scrape target of `/api/v1/targets`. */
export interface PrometheusTarget {
  readonly labels: Readonly<Record<string, string>>;
  readonly scrapePool: string;
  readonly scrapeUrl: string;
  readonly health: 'up' | 'down' | 'unknown';
  readonly lastError: string;
}

/** One alert of `/api/v1/alerts`: pending while its `for` runs, then firing. */
export interface PrometheusAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing';
  readonly value: string;
}

/** One sample of an instant vector: its labels and value. */
export interface PrometheusSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Envelope<T> {
  readonly status: 'success' | 'error';
  readonly data?: T;
  readonly error?: string;
}

/** A client of one Prometheus' HTTP API, e.g. `http://10.96.0.20:9090`. Every call is bounded by 10 s. */
export class PrometheusApi {
  constructor(readonly url: string) {}

  async #get<T>(path: string, query: Record<string, string> = {}): Promise<T> {
    const url = new URL(path, this.url);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as Envelope<T>;
    if (body.status !== 'success' || body.data === undefined) {
      throw new Error(`GET ${url.pathname}: ${response.status} ${body.error ?? 'no data'}`);
    }
    return body.data;
  }

  /** The active targets (the dropped ones are left out). */
  async targets(): Promise<PrometheusTarget[]> {
    const data = await this.#get<{ activeTargets: PrometheusTarget[] }>('/api/v1/targets', {
      state: 'active',
    });
    return data.activeTargets;
  }

  /** The alerts pending or firing now. */
  async alerts(): Promise<PrometheusAlert[]> {
    return (await this.#get<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts;
  }

  /** An instant query whose result is a vector. */
  async query(expression: string): Promise<PrometheusSample[]> {
    const data = await this.#get<{
      resultType: string;
      result: { metric: Record<string, string>; value: [number, string] }[];
    }>('/api/v1/query', { query: expression });
    if (data.resultType !== 'vector')
      throw new Error(`query ${expression}: a ${data.resultType}, not a vector`);
    return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  }

  /** The names of the rule groups Prometheus has loaded, per rule file. */
  async ruleGroups(): Promise<{ readonly name: string; readonly file: string }[]> {
    return (await this.#get<{ groups: { name: string; file: string }[] }>('/api/v1/rules')).groups;
  }
}
