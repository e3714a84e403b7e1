/**
 * Evidence for electronic signatures, pure and recomputable:
 * - the contract content frozen at request time and its SHA-256;
 * - an append-only audit trail where each entry's hash covers the entry and the previous
 *   hash, so removing, reordering or editing an entry breaks the chain;
 * - on completion, a certificate: canonical JSON of the evidence signed with Ed25519.
 *   Anyone with the public key can check it offline (e.g. with openssl, see README).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../platform/security/canonical-json';
import { chainedHash, GENESIS_HASH, sha256, withoutAbsent as normalize } from '../../platform/security/hash-chain';
import type { AuditEntry, AuditEntryInput } from '../../models/signature';

export { GENESIS_HASH, sha256 };

const entryHash = (e: Omit<AuditEntry, 'hash'>) => chainedHash(e);

export function appendAudit(trail: readonly AuditEntry[], input: AuditEntryInput): AuditEntry {
  const prev = trail[trail.length - 1];
  const base = { ...normalize(input), seq: trail.length, prev_hash: prev?.hash ?? GENESIS_HASH };
  return { ...base, hash: entryHash(base) };
}

/** Index of the first entry that does not chain, or -1 when the whole trail holds. */
export function brokenAuditLink(trail: readonly AuditEntry[]): number {
  let prev = GENESIS_HASH;
  for (const [i, e] of trail.entries()) {
    const { hash, ...rest } = e;
    if (e.seq !== i || e.prev_hash !== prev || entryHash({ ...normalize(rest), seq: e.seq, prev_hash: e.prev_hash }) !== hash) return i;
    prev = hash;
  }
  return -1;
}

export interface CertificatePayload {
  version: 1;
  signature_id: string;
  contract_id: string;
  document_hash: string;
  signers: Array<{ name: string; email: string; signed_at: string }>;
  audit_head: string;
  issued_at: string;
}

export interface Certificate {
  algorithm: 'Ed25519';
  /** The exact signed bytes (canonical JSON of CertificatePayload). */
  payload: string;
  /** Base64 Ed25519 signature over `payload`. */
  signature: string;
  key_id: string;
}

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicKeyPem: string;
  keyId: string;
}

/** The configured Ed25519 key (PKCS#8 PEM), or a fresh one for local runs. */
export function loadSigningKey(privatePem: string): SigningKey {
  const privateKey = privatePem ? createPrivateKey(privatePem) : generateKeyPairSync('ed25519').privateKey;
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('SIGNING_PRIVATE_KEY must be an Ed25519 key');
  const publicKey = createPublicKey(privateKey);
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return { privateKey, publicKey, publicKeyPem, keyId: sha256(publicKeyPem).slice(0, 16) };
}

export function issueCertificate(key: SigningKey, payload: CertificatePayload): Certificate {
  const bytes = canonicalJson(payload);
  return {
    algorithm: 'Ed25519',
    payload: bytes,
    signature: sign(null, Buffer.from(bytes), key.privateKey).toString('base64'),
    key_id: key.keyId,
  };
}

export function certificateValid(publicKey: KeyObject, cert: Certificate): boolean {
  try {
    return verify(null, Buffer.from(cert.payload), publicKey, Buffer.from(cert.signature, 'base64'));
  } catch {
    return false;
  }
}
