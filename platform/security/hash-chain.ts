/**
 * Hash chains for append-only trails (the signatures' audit trail, the identity audit log):
 * each entry's hash covers its fields (absent ones dropped, canonical JSON) after the previous
 * entry's hash, so removing, reordering or editing an entry breaks the chain.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const GENESIS_HASH = '0'.repeat(64);

/** The stored shape may carry nulls for absent fields; hash the same either way. */
export function withoutAbsent<T extends object>(e: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (v !== null && v !== undefined) out[k] = v;
  return out as T;
}

/** The hash of an entry (every field but `hash`) chained to `prev_hash`. */
export const chainedHash = (e: { prev_hash: string }) => sha256(`${e.prev_hash}${canonicalJson(withoutAbsent(e))}`);
