import { AsyncLocalStorage } from 'node:async_hooks';

/** Severity, from most to least verbose. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured fields of a log line. */
export type LogFields = Record<string, unknown>;

/** The fields a reconcile puts in context; any other field is allowed too. */
export interface LogContext extends LogFields {
  controller?: string;
  namespace?: string;
  name?: string;
  reconcileID?: string;
}

/** A structured logger: each call writes one JSON object. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  /** Logs `err` as `error` (its message), `errorCode` (its `code`, if any) and, at debug level, `stack`. */
  error(msg: string, err?: unknown, fields?: LogFields): void;
  /** A logger adding `fields` to every line (over this logger's own). */
  child(fields: LogFields): Logger;
}

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** Lines below this level are not written; default `info`. */
  level?: LogLevel;
  /** Receives each line (JSON, without newline); default: written to stderr. */
  sink?: (line: string) => void;
  /** Fields on every line. */
  fields?: LogFields;
  /** Milliseconds since the epoch for `ts`; defaults to `Date.now`. */
  clock?: () => number;
}

const SEVERITY: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/** Keys whose values are never written. */
export const REDACTED_KEY = /password|passwd|token|secret|authorization|credential|api[-_]?key/i;
const REDACTED = '[redacted]';
const RESERVED = new Set(['ts', 'level', 'msg']);
const MAX_DEPTH = 8;

const contextStorage = new AsyncLocalStorage<Readonly<LogFields>>();

/**
 * Runs `fn` with `fields` (e.g. `controller`, `namespace`, `name`, `reconcileID`) added to every line logged in
 * its synchronous and asynchronous call chain. Nested calls add to the outer context.
 *
 * @returns what `fn` returns (a promise stays a promise).
 */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return contextStorage.run({ ...contextStorage.getStore(), ...fields }, fn);
}

/** The fields of the current log context (empty outside `withLogContext`). */
export function getLogContext(): Readonly<LogFields> {
  return contextStorage.getStore() ?? {};
}

/**
 * `base` with the current log context bound to it, so lines keep the context even when written outside the
 * call chain (loggers from `createLogger` add the ambient context by themselves while inside it).
 */
export function currentLogger(base: Logger): Logger {
  const context = contextStorage.getStore();
  return context ? base.child(context) : base;
}

/** A JSON lines logger. Logging never throws. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  return new JsonLogger(
    {
      threshold: SEVERITY[level],
      stacks: level === 'debug',
      sink: options.sink ?? ((line) => process.stderr.write(`${line}\n`)),
      clock: options.clock ?? Date.now,
    },
    options.fields ?? {},
  );
}

interface Config {
  readonly threshold: number;
  readonly stacks: boolean;
  readonly sink: (line: string) => void;
  readonly clock: () => number;
}

class JsonLogger implements Logger {
  readonly #config: Config;
  readonly #fields: LogFields;

  constructor(config: Config, fields: LogFields) {
    this.#config = config;
    this.#fields = fields;
  }

  debug(msg: string, fields?: LogFields): void {
    this.#write('debug', msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.#write('info', msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.#write('warn', msg, fields);
  }

  error(msg: string, err?: unknown, fields?: LogFields): void {
    this.#write('error', msg, fields, err);
  }

  child(fields: LogFields): Logger {
    return new JsonLogger(this.#config, { ...this.#fields, ...fields });
  }

  #write(level: LogLevel, msg: string, fields: LogFields | undefined, err?: unknown): void {
    if (SEVERITY[level] < this.#config.threshold) return;
    try {
      const record: LogFields = { ts: new Date(this.#config.clock()).toISOString(), level, msg };
      const merged: LogFields = { ...contextStorage.getStore(), ...this.#fields, ...fields };
      if (err !== undefined) Object.assign(merged, serializeError(err, this.#config.stacks));
      for (const [key, value] of Object.entries(merged)) {
        if (value === undefined) continue;
        record[RESERVED.has(key) ? `fields.${key}` : key] = REDACTED_KEY.test(key)
          ? REDACTED
          : sanitize(value, [], 0);
      }
      this.#config.sink(JSON.stringify(record));
    } catch {
      // A log line is never worth breaking the caller.
    }
  }
}

function serializeError(err: unknown, withStack: boolean): LogFields {
  const fields: LogFields = { error: messageOf(err) };
  if (typeof err === 'object' && err !== null) {
    const { code, stack } = err as { code?: unknown; stack?: unknown };
    if (typeof code === 'string' || typeof code === 'number') fields.errorCode = code;
    if (withStack && typeof stack === 'string') fields.stack = stack;
  }
  return fields;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  return String(err);
}

/** A JSON-safe copy of `value`, with secrets redacted at any depth. */
function sanitize(value: unknown, ancestors: object[], depth: number): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Error) return serializeError(value, false);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return sanitize(toJSON.call(value), ancestors, depth);
  if (ancestors.includes(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  const path = [...ancestors, value];
  if (Array.isArray(value)) return value.map((item) => sanitize(item, path, depth + 1));
  const out: LogFields = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = REDACTED_KEY.test(key) ? REDACTED : sanitize(item, path, depth + 1);
  }
  return out;
}
