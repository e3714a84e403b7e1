/**
 * Secrets at rest (TOTP seeds, webhook and integration secrets, sealed mail and links),
 * AES-256-GCM, and MACs and derived tokens. ENCRYPTION_KEY is only keying material: each use
 * gets its own key, derived from it with HKDF-SHA256 (`purposeKey`), so no key is both an
 * AES key and an HMAC key.
 *
 * Migration from the single key: values sealed before (`v1:`, the raw ENCRYPTION_KEY as AES
 * key) still open, and the worker reseals them at start (services/secrets/reseal-legacy-secrets.ts);
 * MACs that travel in links (copy links, form tokens) are accepted under the old derivation
 * too (`derivedSecretMatches`, `legacyMacKey`) until those links have expired on their own.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config';

/** Sealed under the HKDF-derived encryption key. */
const VERSION = 'v2';
/** Sealed under the raw ENCRYPTION_KEY, before keys were separated: opened, never written. */
const LEGACY_VERSION = 'v1';
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

type KeyConfig = Pick<Config, 'ENCRYPTION_KEY'>;

const purposeKeys = new Map<string, Buffer>();

/** The key of one purpose, derived from ENCRYPTION_KEY (HKDF-SHA256, the purpose as info). */
export function purposeKey(config: KeyConfig, purpose: string): Buffer {
  const id = `${purpose}\0${config.ENCRYPTION_KEY}`;
  let key = purposeKeys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', Buffer.from(config.ENCRYPTION_KEY, 'base64'), Buffer.alloc(0), `clm/${purpose}`, 32));
    purposeKeys.set(id, key);
  }
  return key;
}

/** The raw ENCRYPTION_KEY as the MAC key it used to be, for verifying what was issued before the keys were separated. */
export const legacyMacKey = (config: KeyConfig) => Buffer.from(config.ENCRYPTION_KEY, 'base64');

export function encryptSecret(config: KeyConfig, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', purposeKey(config, 'aes-256-gcm/secrets-at-rest'), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
}

/** True for a value sealed under the raw ENCRYPTION_KEY, which the worker reseals at start. */
export const isLegacySealed = (sealed: string) => sealed.startsWith(`${LEGACY_VERSION}:`);

export function decryptSecret(config: KeyConfig, sealed: string): string {
  const [version, iv, tag, data] = sealed.split(':');
  if ((version !== VERSION && version !== LEGACY_VERSION) || !iv || !tag || !data) throw new Error('unrecognized encrypted value');
  const key = version === VERSION ? purposeKey(config, 'aes-256-gcm/secrets-at-rest') : Buffer.from(config.ENCRYPTION_KEY, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
}

function base62Secret(purposeMacKey: Buffer, subject: string): string {
  let n = BigInt(`0x${createHmac('sha256', purposeMacKey).update(subject).digest('hex')}`);
  let out = '';
  // 62^43 > 2^256: every digest has its own 43-character spelling.
  for (let i = 0; i < 43; i++, n /= 62n) out = BASE62[Number(n % 62n)]! + out;
  return out;
}

/**
 * A secret derived from ENCRYPTION_KEY for one purpose and subject (HMAC-SHA256 under the
 * purpose's own HKDF key; 43 base62 characters, 256 bits, like the random tokens). For a token
 * that must be shown again without being stored anywhere: only its hash is kept, and the
 * service can derive it anew.
 */
export const derivedSecret = (config: KeyConfig, purpose: string, subject: string): string =>
  base62Secret(purposeKey(config, `hmac/derived-secret/${purpose}`), subject);

/**
 * `given` is the derived secret of `purpose` and `subject`, under today's key or the one
 * before the keys were separated (links mailed before then still open until they expire).
 */
export function derivedSecretMatches(config: KeyConfig, purpose: string, subject: string, given: string): boolean {
  const legacy = createHmac('sha256', legacyMacKey(config)).update(`derived-secret:${purpose}`).digest();
  return safeEqual(given, derivedSecret(config, purpose, subject)) || safeEqual(given, base62Secret(legacy, subject));
}

/** SHA-256 hex: how random bearer tokens (API keys, refresh, signing links) are stored. */
export const sha256Hex = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Unbiased random base62 string (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
