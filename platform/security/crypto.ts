/** Secrets at rest (TOTP seeds, webhook and integration secrets): AES-256-GCM, and hashes for lookup tokens. */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config';

const VERSION = 'v1';
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function encryptSecret(config: Pick<Config, 'ENCRYPTION_KEY'>, plaintext: string): string {
  const key = Buffer.from(config.ENCRYPTION_KEY, 'base64');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
}

export function decryptSecret(config: Pick<Config, 'ENCRYPTION_KEY'>, sealed: string): string {
  const [version, iv, tag, data] = sealed.split(':');
  if (version !== VERSION || !iv || !tag || !data) throw new Error('unrecognized encrypted value');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(config.ENCRYPTION_KEY, 'base64'), Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * A secret derived from ENCRYPTION_KEY for one purpose and subject (HMAC-SHA256 under a
 * per-purpose key; 43 base62 characters, 256 bits, like the random tokens). For a token
 * that must be shown again without being stored anywhere: only its hash is kept, and the
 * service can derive it anew.
 */
export function derivedSecret(config: Pick<Config, 'ENCRYPTION_KEY'>, purpose: string, subject: string): string {
  const purposeKey = createHmac('sha256', Buffer.from(config.ENCRYPTION_KEY, 'base64')).update(`derived-secret:${purpose}`).digest();
  let n = BigInt(`0x${createHmac('sha256', purposeKey).update(subject).digest('hex')}`);
  let out = '';
  // 62^43 > 2^256: every digest has its own 43-character spelling.
  for (let i = 0; i < 43; i++, n /= 62n) out = BASE62[Number(n % 62n)]! + out;
  return out;
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
