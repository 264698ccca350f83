/**
 * The layouts go-yaml v2 tries with `time.Parse` when it resolves a plain scalar (`allowedTimestampFormats`):
 * RFC 3339 with `T` or `t` and a zone, a space-separated date and time without a zone, or a date alone. Months,
 * days, hours, minutes and seconds may have one or two digits; the fraction takes `.` or `,`.
 */
const LAYOUTS = [
  /^(\d{4})-(\d{1,2})-(\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-](\d\d):(\d\d))$/,
  /^(\d{4})-(\d{1,2})-(\d{1,2}) +(\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?$/,
  /^(\d{4})-(\d{1,2})-(\d{1,2})$/,
];

function inRange(m: RegExpExecArray): boolean {
  const [, year, month, day, hour, minute, second, zoneHour, zoneMinute] = m.map(Number);
  if (month! < 1 || month! > 12 || day! < 1) return false;
  const leap = (year! % 4 === 0 && year! % 100 !== 0) || year! % 400 === 0;
  if (day! > [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month! - 1]!) return false;
  if (m[4] !== undefined && (hour! > 23 || minute! > 59 || second! > 59)) return false;
  return m[7] === undefined || (zoneHour! <= 24 && zoneMinute! <= 60);
}

/**
 * Whether go-yaml v2 reads the plain scalar `s` as a timestamp — and so quotes the string `s` when it writes it.
 * A date-time without a zone, such as `2021-01-01T00:00:00` (a common `createdAt`), is not one: go-yaml writes it
 * unquoted, while YAML 1.1 libraries quote it.
 */
export function isGoYamlTimestamp(s: string): boolean {
  for (const layout of LAYOUTS) {
    const m = layout.exec(s);
    if (m !== null) return inRange(m);
  }
  return false;
}
