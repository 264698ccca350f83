import { describe, expect, it } from 'vitest';
import { decodeCatalogStream } from './stream.js';

const decode = (text: string) => decodeCatalogStream(new TextEncoder().encode(text));
const schemas = (text: string) => decode(text).metas.map((m) => m.schema);

describe('decodeCatalogStream (apimachinery YAMLOrJSONDecoder + declcfg.Meta)', () => {
  it('reads concatenated JSON objects, with or without whitespace between them', () => {
    expect(schemas('{"schema":"a"}{"schema":"b"}\n  {"schema":"c"}')).toEqual(['a', 'b', 'c']);
  });

  it('reads YAML documents separated by --- lines, ignoring empty documents', () => {
    expect(schemas('---\n---\nschema: a\n---   # comment\nschema: b\n---\n')).toEqual(['a', 'b']);
  });

  it('treats CRLF line ends like LF', () => {
    expect(schemas('schema: a\r\n---\r\nschema: b\r\n')).toEqual(['a', 'b']);
  });

  it('matches schema, package and name case-insensitively', () => {
    const [meta] = decode('{"Schema":"olm.package","NAME":"foo","Package":"p"}').metas;
    expect(meta).toMatchObject({ schema: 'olm.package', name: 'foo', package: 'p' });
  });

  it('falls back to YAML when the first JSON object is not valid JSON but valid YAML', () => {
    const r = decode('{"schema": "olm.package", "name": "foo",}\n');
    expect(r.error).toBeUndefined();
    expect(r.metas[0]?.name).toBe('foo');
  });

  it('reports the JSON syntax error with Go offset when the YAML fallback fails too', () => {
    expect(decode('{"schema":"a" "name":"b"}').error).toBe(
      `json: offset 15: invalid character '"' after object key:value pair`,
    );
  });

  it('reports the bare JSON error once two objects were read (no fallback)', () => {
    expect(decode('{"schema":"a"}{"schema":"b"}\nschema: c\n').error).toBe(
      "invalid character 's' looking for beginning of value",
    );
  });

  it('reports a truncated JSON object as unexpected EOF', () => {
    expect(decode('{"schema":"a"').error).toBe('unexpected EOF');
  });

  it('rejects text after a document separator', () => {
    expect(decode('schema: a\n--- {schema: b}\n').error).toBe('invalid Yaml document separator: {schema: b}');
  });

  it('resolves YAML 1.1 scalars like go-yaml v2, so `name: yes` is a boolean', () => {
    expect(decode('schema: olm.package\nname: yes\n').error).toBe(
      'error unmarshaling JSON: while decoding JSON: expected value for key "name" to be a string, got true: true',
    );
  });

  it('rejects keys that differ only in case', () => {
    expect(decode('{"name":"a","Name":"b","schema":"x"}').error).toBe(
      'duplicate keys for key "name": [Name name]',
    );
  });

  it('renders a non-object document like opm, pointing at the offending position', () => {
    expect(decode('[1, 2]').error).toBe(
      'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type ' +
        'map[string]interface {} at offset 1 (indicated by <==)\n[ <== \n    1,\n    2\n]',
    );
  });

  it('reads a single-letter n or y as a YAML 1.1 boolean, as go-yaml v2 does', () => {
    expect(decode('schema: x\nname: n\n').error).toContain(
      'expected value for key "name" to be a string, got false',
    );
  });

  it('keeps documents that only hold comments as schema-less objects', () => {
    const r = decode('# nothing here\n');
    expect(r.metas).toEqual([{ schema: '', package: '', name: '', blob: null }]);
  });
});
