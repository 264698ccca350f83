import { connect, type Socket } from 'node:net';

/**
 * A RESP2 reply: simple strings and bulk strings as strings (Buffers with `binary`; null for nil), integers,
 * arrays, errors.
 */
export type RespValue = string | Buffer | number | null | RespValue[] | ReplyError;

/** An error reply (`-ERR …`, `-MOVED …`). Its message is the server's; command arguments never appear in it. */
export class ReplyError extends Error {
  readonly code = 'REDIS_REPLY_ERROR';
  /** The first word of the reply: ERR, MOVED, ASK, TRYAGAIN, CLUSTERDOWN, NOAUTH … */
  readonly kind: string;
  constructor(
    readonly reply: string,
    command: string,
  ) {
    super(`${command}: ${reply}`);
    this.kind = reply.split(' ', 1)[0]!;
  }
}

/** The connection failed or closed, or a reply did not come in time. */
export class RedisConnectionError extends Error {
  readonly code = 'REDIS_CONNECTION_ERROR';
}

export type Arg = string | number | Buffer;

/** The name a failing command is reported under: the command and, for container commands, the subcommand. */
function commandName(args: readonly Arg[]): string {
  const first = String(args[0] ?? '').toUpperCase();
  return ['CLUSTER', 'CONFIG', 'CLIENT'].includes(first) && args[1] !== undefined
    ? `${first} ${String(args[1]).toUpperCase()}`
    : first;
}

function encode(args: readonly Arg[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const data = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    parts.push(Buffer.from(`$${data.length}\r\n`), data, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `offset`; returns it and the next offset, or undefined when more bytes are needed. */
function parse(
  buf: Buffer,
  offset: number,
  command: string,
  binary: boolean,
): [RespValue, number] | undefined {
  if (offset >= buf.length) return undefined;
  const end = buf.indexOf('\r\n', offset);
  if (end < 0) return undefined;
  const type = String.fromCharCode(buf[offset]!);
  const line = buf.toString('utf8', offset + 1, end);
  const next = end + 2;
  switch (type) {
    case '+':
      return [line, next];
    case '-':
      return [new ReplyError(line, command), next];
    case ':':
      return [Number(line), next];
    case '$': {
      const length = Number(line);
      if (length < 0) return [null, next];
      if (buf.length < next + length + 2) return undefined;
      const end2 = next + length;
      return [binary ? Buffer.from(buf.subarray(next, end2)) : buf.toString('utf8', next, end2), end2 + 2];
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return [null, next];
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buf, at, command, binary);
        if (!item) return undefined;
        items.push(item[0]);
        at = item[1];
      }
      return [items, at];
    }
    default:
      throw new RedisConnectionError(`protocol error: unexpected reply type ${JSON.stringify(type)}`);
  }
}

interface Pending {
  readonly command: string;
  readonly binary: boolean;
  readonly resolve: (value: RespValue) => void;
  readonly reject: (error: Error) => void;
}

export interface ConnectOptions {
  /** Sent with AUTH right after connecting; never logged or put into an error message. */
  readonly password?: string;
  /** @default 3000 */
  readonly connectTimeoutMs?: number;
  /** A reply must come within this time, or the connection is closed. @default 15000 */
  readonly commandTimeoutMs?: number;
}

/**
 * One RESP2 connection. Commands are pipelined: `call` may be invoked many times without waiting, and the
 * replies resolve in order. Error replies reject `call` with a {@link ReplyError}; `send` resolves them instead.
 */
export class RedisConnection {
  readonly #socket: Socket;
  readonly #pending: Pending[] = [];
  readonly #timeoutMs: number;
  #buffer: Buffer = Buffer.alloc(0);
  #closed: Error | undefined;
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    socket: Socket,
    readonly address: string,
    timeoutMs: number,
  ) {
    this.#socket = socket;
    this.#timeoutMs = timeoutMs;
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('error', (error) => this.#fail(new RedisConnectionError(`${address}: ${error.message}`)));
    socket.on('close', () => this.#fail(new RedisConnectionError(`${address}: connection closed`)));
  }

  static async connect(address: string, options: ConnectOptions = {}): Promise<RedisConnection> {
    const { host, port } = splitAddress(address);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host, port, noDelay: true });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new RedisConnectionError(`${address}: connect timed out`));
      }, options.connectTimeoutMs ?? 3000);
      s.once('connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        resolve(s);
      });
      s.once('error', (error) => {
        clearTimeout(timer);
        reject(new RedisConnectionError(`${address}: ${error.message}`));
      });
    });
    const connection = new RedisConnection(socket, address, options.commandTimeoutMs ?? 15_000);
    if (options.password !== undefined) {
      try {
        await connection.call('AUTH', options.password);
      } catch (error) {
        connection.close();
        throw error;
      }
    }
    return connection;
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** Sends a command; resolves with its reply, error replies included. */
  send(...args: Arg[]): Promise<RespValue> {
    return this.#send(args, false);
  }

  /** `call` with bulk strings as Buffers (keys of any bytes). */
  async callBinary(...args: Arg[]): Promise<RespValue> {
    const reply = await this.#send(args, true);
    if (reply instanceof ReplyError) throw reply;
    return reply;
  }

  #send(args: Arg[], binary: boolean): Promise<RespValue> {
    if (this.#closed) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) => {
      this.#pending.push({ command: commandName(args), binary, resolve, reject });
      this.#socket.write(encode(args));
      this.#arm();
    });
  }

  /** Sends a command; rejects with a {@link ReplyError} on an error reply. */
  async call(...args: Arg[]): Promise<RespValue> {
    const reply = await this.send(...args);
    if (reply instanceof ReplyError) throw reply;
    return reply;
  }

  /** `call` for commands answering a string. */
  async text(...args: Arg[]): Promise<string> {
    return String(await this.call(...args));
  }

  close(): void {
    this.#fail(new RedisConnectionError(`${this.address}: connection closed by the client`));
  }

  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#pending.length === 0) return;
    this.#timer = setTimeout(
      () => this.#fail(new RedisConnectionError(`${this.address}: no reply within ${this.#timeoutMs} ms`)),
      this.#timeoutMs,
    );
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    let offset = 0;
    try {
      while (this.#pending.length > 0) {
        const head = this.#pending[0]!;
        const parsed = parse(this.#buffer, offset, head.command, head.binary);
        if (!parsed) break;
        offset = parsed[1];
        this.#pending.shift()!.resolve(parsed[0]);
      }
    } catch (error) {
      this.#fail(error as Error);
      return;
    }
    this.#buffer = offset >= this.#buffer.length ? Buffer.alloc(0) : this.#buffer.subarray(offset);
    this.#arm();
  }

  #fail(error: Error): void {
    if (!this.#closed) this.#closed = error;
    clearTimeout(this.#timer);
    this.#socket.destroy();
    for (const p of this.#pending.splice(0)) p.reject(error);
  }
}

export function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}
