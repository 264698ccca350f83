import { describe, expect, it } from 'vitest';
import { GO_CHANNEL } from '../catalog/declcfg/go-schemas.js';
import { decodeGoBase64 } from './go-base64.js';
import { decodeGo } from './go-json-decode.js';
import { scanJsonValue } from './go-json-scan.js';

const scan = (s: string) => scanJsonValue(new TextEncoder().encode(s), 0);

describe('Go encoding/json emulation', () => {
  it.each([
    ['{"a" 1}', "invalid character '1' after object key", 6],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string", 8],
    ['[1,]', "invalid character ']' looking for beginning of value", 4],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')", 9],
    ['{"a":-x}', "invalid character 'x' in numeric literal", 7],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code", 8],
  ])('reports %s like Go: %s at offset %d', (input, message, offset) => {
    expect(scan(input)).toEqual({ kind: 'syntax', message, offset });
  });

  it('decodes struct fields case-insensitively, the last of equal-folding keys winning in sorted order', () => {
    const { value } = decodeGo({ NAME: 'a', name: 'b', entries: [{ Name: 'x' }] }, GO_CHANNEL);
    expect(value).toEqual({ name: 'b', entries: [{ name: 'x' }] });
  });

  it('reports the first type error with the struct path and keeps decoding', () => {
    const { value, error } = decodeGo({ entries: [{ skips: 'a', name: 'n' }], name: 5 }, GO_CHANNEL);
    expect(error).toBe(
      'json: cannot unmarshal string into Go struct field ChannelEntry.entries.skips of type []string',
    );
    expect(value).toEqual({ entries: [{ name: 'n' }] });
  });

  it('decodes base64 like Go, skipping line breaks and requiring padding', () => {
    expect(Buffer.from(decodeGoBase64('aGVs\nbG8=')).toString()).toBe('hello');
    expect(() => decodeGoBase64('aGVsbG8')).toThrow('illegal base64 data at input byte 4');
  });
});
