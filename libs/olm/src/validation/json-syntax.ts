/**
 * Where Go's `encoding/json` scanner stops on invalid input. Returns the `SyntaxError.Offset` Go reports
 * (bytes read including the offending one, or the input length at an unexpected end), or `undefined` when
 * the input is valid JSON.
 */
// Long on purpose: one recursive-descent pass whose small closures share a single cursor, so the offset where
// it stops is the one Go's scanner reports; split apart, each piece would need that cursor threaded through.
export function goJsonSyntaxErrorOffset(input: string): number | undefined {
  const bytes = Buffer.from(input, 'utf8');
  let i = 0;
  class Stop {
    constructor(readonly offset: number) {}
  }
  const fail = (): never => {
    throw new Stop(i < bytes.length ? i + 1 : bytes.length);
  };
  const ws = () => {
    while (
      i < bytes.length &&
      (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)
    )
      i++;
  };
  const expect = (byte: number) => {
    if (i >= bytes.length || bytes[i] !== byte) fail();
    i++;
  };
  const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
  const value = (): void => {
    ws();
    if (i >= bytes.length) fail();
    const c = bytes[i]!;
    if (c === 0x7b) {
      i++;
      ws();
      if (bytes[i] === 0x7d) {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (bytes[i] !== 0x22) fail();
        string();
        ws();
        expect(0x3a);
        value();
        ws();
        if (bytes[i] === 0x2c) {
          i++;
          continue;
        }
        expect(0x7d);
        return;
      }
    }
    if (c === 0x5b) {
      i++;
      ws();
      if (bytes[i] === 0x5d) {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (bytes[i] === 0x2c) {
          i++;
          continue;
        }
        expect(0x5d);
        return;
      }
    }
    if (c === 0x22) {
      string();
      return;
    }
    if (c === 0x2d || isDigit(c)) {
      number();
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (c === word.charCodeAt(0)) {
        for (let k = 0; k < word.length; k++) expect(word.charCodeAt(k));
        return;
      }
    }
    fail();
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= bytes.length) fail();
      const b = bytes[i]!;
      if (b === 0x22) {
        i++;
        return;
      }
      if (b < 0x20) fail();
      if (b === 0x5c) {
        i++;
        if (i >= bytes.length) fail();
        const e = bytes[i]!;
        if (e === 0x75) {
          i++;
          for (let k = 0; k < 4; k++) {
            const h = bytes[i];
            if (h === undefined || !/[0-9a-fA-F]/.test(String.fromCharCode(h))) fail();
            i++;
          }
          continue;
        }
        if (!'"\\/bfnrt'.includes(String.fromCharCode(e))) fail();
      }
      i++;
    }
  };
  const number = (): void => {
    if (bytes[i] === 0x2d) i++;
    if (bytes[i] === 0x30) i++;
    else if (isDigit(bytes[i])) while (isDigit(bytes[i])) i++;
    else fail();
    if (bytes[i] === 0x2e) {
      i++;
      if (!isDigit(bytes[i])) fail();
      while (isDigit(bytes[i])) i++;
    }
    if (bytes[i] === 0x65 || bytes[i] === 0x45) {
      i++;
      if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
      if (!isDigit(bytes[i])) fail();
      while (isDigit(bytes[i])) i++;
    }
  };
  try {
    value();
    ws();
    if (i < bytes.length) fail();
    return undefined;
  } catch (stop) {
    if (stop instanceof Stop) return stop.offset;
    throw stop;
  }
}

/** The first `offset` bytes of `input` as a string (Go's `string(byteValue[0:t.Offset])`). */
export function bytePrefix(input: string, offset: number): string {
  return Buffer.from(input, 'utf8').subarray(0, offset).toString('utf8');
}
