/**
 * Kubernetes name checks with apimachinery v0.36's exact messages (`pkg/util/validation`,
 * `pkg/api/validate/content`).
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const LABEL_KEY = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${LABEL_KEY})?`;

const full = (re: string) => new RegExp(`^${re}$`);
const dns1123LabelRe = full(DNS1123_LABEL);
const dns1123SubdomainRe = full(DNS1123_SUBDOMAIN);
const dns1035LabelRe = full(DNS1035_LABEL);
const labelKeyRe = full(LABEL_KEY);
const labelValueRe = full(LABEL_VALUE);

/** Byte length, as Go's `len(string)`. */
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** apimachinery `RegexError`. */
export function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${re}')`;
}

/** `validation.IsDNS1123Subdomain` (length message in characters). */
export function isDns1123Subdomain(value: string, unit: 'characters' | 'bytes' = 'characters'): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(`must be no more than 253 ${unit}`);
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errs;
}

/** `validation.IsDNS1123Label`. */
export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 characters');
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

/** `validation.IsDNS1035Label`. */
export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 characters');
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** `validation.IsValidLabelValue` (= `content.IsLabelValue`). */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 bytes');
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** `validation.IsQualifiedName` (= `content.IsLabelKey`). */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const keyMessage =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDns1123Subdomain(prefix, 'bytes').map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(keyMessage, LABEL_KEY, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push('name part must be no more than 63 bytes');
  if (!labelKeyRe.test(name))
    errs.push(`name part ${regexError(keyMessage, LABEL_KEY, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}
