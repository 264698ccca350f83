import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
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
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = options.now ?? new Date();
  // A minute back, so a client whose clock is slightly behind accepts it at once.
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + (options.validityDays ?? 365) * 86_400_000);
  const name = sequence(set(sequence(oid(OID.commonName), utf8String(options.commonName))));
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serialNumber()),
    ECDSA_WITH_SHA256,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions(options.hosts))),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
  return { cert: pem('CERTIFICATE', certificate), key: privateKeyPem(privateKey) };
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

function extensions(hosts: readonly string[]): Buffer[] {
  const names = hosts.map((host) => {
    const family = isIP(host);
    if (family === 0) return tagged(0x82, Buffer.from(host, 'ascii')); // [2] dNSName
    return tagged(0x87, ipBytes(host, family)); // [7] iPAddress
  });
  return [
    // A CA of its own, as controller-runtime's (client-go certutil) self-signed certificates are.
    extension(OID.basicConstraints, true, sequence(boolean(true))),
    // digitalSignature and keyCertSign.
    extension(OID.keyUsage, true, bitString(Buffer.from([0b10000100]), 2)),
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

function integer(bytes: Buffer): Buffer {
  // A leading 1 bit would make it negative.
  return tagged(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
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
