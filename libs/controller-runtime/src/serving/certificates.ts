import {
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { isIP } from 'node:net';

/** A serving certificate and its key, PEM-encoded. */
export interface CertificateAndKey {
  readonly cert: string;
  readonly key: string;
}

export interface SelfSignedOptions {
  /** Subject common name. */
  readonly commonName: string;
  /** DNS names and IP addresses the certificate is valid for. */
  readonly hosts: readonly string[];
  /** @default 365 days */
  readonly validityDays?: number;
  /** @default now */
  readonly now?: Date;
}

/**
 * A self-signed ECDSA P-256 serving certificate, as controller-runtime makes one when a secure metrics server
 * is given no certificate: its own CA (clients verify it by pinning, or skip verification and rely on the
 * bearer token), valid for `hosts`. Node can sign but not build certificates, so the DER is written here.
 */
export function selfSignedCertificate(options: SelfSignedOptions): CertificateAndKey {
  return build({ ...options, role: 'self-signed' });
}

export interface AuthorityOptions {
  readonly commonName: string;
  /** @default 3650 days */
  readonly validityDays?: number;
  readonly now?: Date;
}

/** A certificate authority (ECDSA P-256) to sign serving certificates with: its certificate is the CA bundle. */
export function certificateAuthority(options: AuthorityOptions): CertificateAndKey {
  return build({ ...options, hosts: [], validityDays: options.validityDays ?? 3650, role: 'authority' });
}

/**
 * A serving certificate for `hosts` signed by `authority`, so clients trust the authority once and serving
 * certificates can be replaced without touching them.
 */
export function issueServingCertificate(
  options: SelfSignedOptions & { readonly authority: CertificateAndKey },
): CertificateAndKey {
  return build({ ...options, role: 'leaf' });
}

function build(
  options: SelfSignedOptions & {
    readonly role: 'self-signed' | 'authority' | 'leaf';
    readonly authority?: CertificateAndKey;
  },
): CertificateAndKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = options.now ?? new Date();
  // A minute back, so a client whose clock is slightly behind accepts it at once.
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + (options.validityDays ?? 365) * 86_400_000);
  const subject = sequence(set(sequence(oid(OID.commonName), utf8String(options.commonName))));
  const issuer = options.authority ? subjectOf(options.authority.cert) : subject;
  const signingKey = options.authority ? createPrivateKey(options.authority.key) : privateKey;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serialNumber()),
    ECDSA_WITH_SHA256,
    issuer,
    sequence(time(notBefore), time(notAfter)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions(options.role, options.hosts))),
  );
  const signature = sign('sha256', tbs, signingKey);
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
  return { cert: pem('CERTIFICATE', certificate), key: privateKeyPem(privateKey) };
}

/** The subject Name of a PEM certificate, as DER: the issuer field of what it signs. */
function subjectOf(certPem: string): Buffer {
  const der = new X509Certificate(certPem).raw;
  const certificate = readTlv(der, 0);
  const tbs = readTlv(der, certificate.contentStart);
  // tbsCertificate: [0] version, serialNumber, signature, issuer, validity, subject, …
  let field = readTlv(der, tbs.contentStart);
  for (let i = 0; i < 5; i++) field = readTlv(der, field.end);
  return der.subarray(field.start, field.end);
}

/** One DER element at `offset`: where it starts, where its content starts, where it ends. */
function readTlv(der: Buffer, offset: number): { start: number; contentStart: number; end: number } {
  const first = der[offset + 1] ?? 0;
  let len = first;
  let header = 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    len = 0;
    for (let i = 0; i < count; i++) len = len * 256 + (der[offset + 2 + i] ?? 0);
    header += count;
  }
  if (offset + header + len > der.length) throw new Error('certificate: truncated DER');
  return { start: offset, contentStart: offset + header, end: offset + header + len };
}

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

const ECDSA_WITH_SHA256 = sequence(oid(OID.ecdsaWithSha256));

function extensions(role: 'self-signed' | 'authority' | 'leaf', hosts: readonly string[]): Buffer[] {
  const names = hosts.map((host) => {
    const family = isIP(host);
    if (family === 0) return tagged(0x82, Buffer.from(host, 'ascii')); // [2] dNSName
    return tagged(0x87, ipBytes(host, family)); // [7] iPAddress
  });
  if (role === 'authority') {
    return [
      extension(OID.basicConstraints, true, sequence(boolean(true))),
      // digitalSignature, keyCertSign and cRLSign.
      extension(OID.keyUsage, true, bitString(Buffer.from([0b10000110]), 1)),
    ];
  }
  return [
    // Self-signed: a CA of its own, as controller-runtime's (client-go certutil) self-signed certificates are.
    extension(OID.basicConstraints, true, sequence(...(role === 'self-signed' ? [boolean(true)] : []))),
    // digitalSignature, and keyCertSign when it signs itself.
    role === 'self-signed'
      ? extension(OID.keyUsage, true, bitString(Buffer.from([0b10000100]), 2))
      : extension(OID.keyUsage, true, bitString(Buffer.from([0b10000000]), 7)),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
    extension(OID.subjectAltName, false, sequence(...names)),
  ];
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), tagged(0x04, value));
}

function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive
  return bytes;
}

function ipBytes(address: string, family: number): Buffer {
  if (family === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = groups(tail);
  const all = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  const out = Buffer.alloc(16);
  for (const [i, group] of all.entries()) out.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return out;
}

// DER, just the types a certificate needs.

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tagged(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

function sequence(...items: Buffer[]): Buffer {
  return tagged(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tagged(0x31, Buffer.concat(items));
}

function explicit(n: number, content: Buffer): Buffer {
  return tagged(0xa0 | n, content);
}

/**
 * A non-negative DER INTEGER: minimal, as DER requires and OpenSSL enforces ("illegal padding"): no leading
 * zero byte unless the next byte's high bit is set (which would make it negative).
 */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && ((bytes[start + 1] ?? 0) & 0x80) === 0) start++;
  const minimal = bytes.subarray(start);
  return tagged(0x02, (minimal[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

function boolean(value: boolean): Buffer {
  return tagged(0x01, Buffer.from([value ? 0xff : 0]));
}

function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tagged(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

function utf8String(text: string): Buffer {
  return tagged(0x0c, Buffer.from(text, 'utf8'));
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128: number[] = [];
    for (let value = arc; ; value = Math.floor(value / 128)) {
      base128.unshift((value % 128) | (base128.length > 0 ? 0x80 : 0));
      if (value < 128) break;
    }
    bytes.push(...base128);
  }
  return tagged(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after, as RFC 5280 asks. */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050
    ? tagged(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii'))
    : tagged(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function privateKeyPem(key: KeyObject): string {
  return String(key.export({ type: 'pkcs8', format: 'pem' }));
}
