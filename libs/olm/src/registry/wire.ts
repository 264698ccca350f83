/**
 * A small protobuf (proto3) wire codec for messages made only of strings, enums and nested messages — all the
 * registry and health APIs need. Messages are described by {@link MessageSchema}s instead of generated code, so
 * the server starts without parsing `.proto` files and bundles into one file.
 */

/** One field of a message. */
export type FieldSchema =
  | { readonly no: number; readonly name: string; readonly kind: 'string'; readonly repeated?: boolean }
  | { readonly no: number; readonly name: string; readonly kind: 'enum' }
  | {
      readonly no: number;
      readonly name: string;
      readonly kind: 'message';
      readonly repeated?: boolean;
      readonly message: () => MessageSchema;
    };

/** The fields of a message, by field number. */
export interface MessageSchema {
  readonly name: string;
  readonly fields: readonly FieldSchema[];
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

/** A message could not be decoded. */
export class WireDecodeError extends Error {
  constructor(schema: MessageSchema, reason: string) {
    super(`decode ${schema.name}: ${reason}`);
    this.name = 'WireDecodeError';
  }
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

function lengthDelimited(no: number, payload: Buffer, out: Buffer[]): void {
  out.push(varint((no << 3) | WIRE_LENGTH_DELIMITED), varint(payload.length), payload);
}

/** Encodes `value` (a plain object keyed by field names) as `schema`; proto3 defaults are left out. */
export function encodeMessage(schema: MessageSchema, value: object): Buffer {
  const record = value as Record<string, unknown>;
  const out: Buffer[] = [];
  for (const field of schema.fields) {
    const v = record[field.name];
    if (v === undefined || v === null) continue;
    switch (field.kind) {
      case 'string':
        if (field.repeated) {
          for (const s of v as string[]) lengthDelimited(field.no, Buffer.from(s, 'utf8'), out);
        } else if (v !== '') {
          lengthDelimited(field.no, Buffer.from(v as string, 'utf8'), out);
        }
        break;
      case 'enum':
        if (v !== 0) out.push(varint((field.no << 3) | WIRE_VARINT), varint(v as number));
        break;
      case 'message':
        if (field.repeated) {
          for (const m of v as object[]) lengthDelimited(field.no, encodeMessage(field.message(), m), out);
        } else {
          lengthDelimited(field.no, encodeMessage(field.message(), v as object), out);
        }
        break;
    }
  }
  return Buffer.concat(out);
}

/** Decodes a message; absent strings are `''`, absent repeated fields `[]`, absent messages `undefined`. */
export function decodeMessage<T>(schema: MessageSchema, bytes: Uint8Array): T {
  const out: Record<string, unknown> = {};
  const byNo = new Map<number, FieldSchema>();
  for (const f of schema.fields) {
    byNo.set(f.no, f);
    if (f.kind === 'enum') out[f.name] = 0;
    else if (f.kind === 'string') out[f.name] = f.repeated ? [] : '';
    else if (f.repeated) out[f.name] = [];
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const readVarint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (pos >= buf.length) throw new WireDecodeError(schema, 'truncated varint');
      const b = buf[pos++]!;
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
      if (scale > 2 ** 63) throw new WireDecodeError(schema, 'varint too long');
    }
  };
  while (pos < buf.length) {
    const tag = readVarint();
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    const field = byNo.get(no);
    if (wire === WIRE_VARINT) {
      const v = readVarint();
      if (field?.kind === 'enum') out[field.name] = v;
      continue;
    }
    if (wire === WIRE_FIXED64 || wire === WIRE_FIXED32) {
      pos += wire === WIRE_FIXED64 ? 8 : 4;
      continue;
    }
    if (wire !== WIRE_LENGTH_DELIMITED) throw new WireDecodeError(schema, `unsupported wire type ${wire}`);
    const length = readVarint();
    if (pos + length > buf.length) throw new WireDecodeError(schema, `field ${no} overruns the message`);
    const payload = buf.subarray(pos, pos + length);
    pos += length;
    if (field === undefined || field.kind === 'enum') continue;
    if (field.kind === 'string') {
      const s = payload.toString('utf8');
      if (field.repeated) (out[field.name] as string[]).push(s);
      else out[field.name] = s;
    } else {
      const m = decodeMessage<object>(field.message(), payload);
      if (field.repeated) (out[field.name] as object[]).push(m);
      else out[field.name] = m;
    }
  }
  return out as T;
}
