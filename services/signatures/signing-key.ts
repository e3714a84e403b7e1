/**
 * The Ed25519 key that signs signature certificates: SIGNING_PRIVATE_KEY when configured;
 * otherwise one generated on first use and shared through the store (encrypted), so the
 * API and the workers agree on it.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Config } from '../../platform/config';
import { decryptSecret, encryptSecret } from '../../platform/security/crypto';
import { loadSigningKey, type SigningKey } from './signature-evidence';
import { ServiceKey } from '../../models/service-key';

const KEY_ID = 'signature-certificate';
let cached: Promise<SigningKey> | undefined;

export function getSigningKey(config: Pick<Config, 'SIGNING_PRIVATE_KEY' | 'ENCRYPTION_KEY'>): Promise<SigningKey> {
  cached ??= load(config).catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function load(config: Pick<Config, 'SIGNING_PRIVATE_KEY' | 'ENCRYPTION_KEY'>): Promise<SigningKey> {
  if (config.SIGNING_PRIVATE_KEY) return loadSigningKey(config.SIGNING_PRIVATE_KEY);
  const generated = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // $setOnInsert: the first process to get here wins; everyone reads the winner's key.
  await ServiceKey.updateOne(
    { _id: KEY_ID },
    { $setOnInsert: { private_key_encrypted: encryptSecret(config, generated) } },
    { upsert: true },
  );
  const stored = await ServiceKey.findById(KEY_ID).lean();
  if (!stored) throw new Error('signing key could not be stored');
  return loadSigningKey(decryptSecret(config, stored.private_key_encrypted));
}
