/**
 * Password hashing with scrypt (node:crypto), self-describing so parameters can change:
 * a hash made with other parameters still verifies, and login replaces it (needsRehash).
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** OWASP's scrypt minimum: N = 2^17, r = 8, p = 1, which needs 128 MiB per hash (128·N·r bytes). */
const PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;
/** Node refuses scrypt above 32 MiB unless told; room for PARAMS, and a ceiling on what a stored hash may ask for. */
const MAXMEM = 256 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, keylen, { ...options, maxmem: MAXMEM }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt b64>$<key b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

function parse(stored: string) {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return null;
  return { N: Number(n), r: Number(r), p: Number(p), salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const h = parse(stored);
  if (!h) return false;
  const actual = await scrypt(password, h.salt, h.key.length, { N: h.N, r: h.r, p: h.p });
  return timingSafeEqual(actual, h.key);
}

/** Whether a stored hash was made with other (older, weaker) parameters than hashPassword uses now. */
export function needsRehash(stored: string): boolean {
  const h = parse(stored);
  return !h || h.N !== PARAMS.N || h.r !== PARAMS.r || h.p !== PARAMS.p || h.key.length !== KEY_LENGTH;
}

/**
 * A hash of nothing anyone knows: login verifies against it when the email is unknown,
 * so an unknown email costs the same scrypt work as a wrong password.
 */
export const DECOY_HASH_PROMISE = hashPassword(randomBytes(16).toString('hex'));
