/**
 * The Ed25519 key that signs signature certificates: SIGNING_PRIVATE_KEY when configured;
 * otherwise the one in the store (encrypted), generated in an offload thread only when none
 * is stored (./service-keys.ts), so the API and the workers agree on it.
 */
import type { Config } from '../../platform/config';
import type { Engines } from '../../platform/engines';
import { loadSigningKey, type SigningKey } from './signature-evidence';
import { signingKeyTask } from './generate-service-keys';
import { KEY_GENERATION_TIMEOUT_MS, storedServiceKey } from './service-keys';

const KEY_ID = 'signature-certificate';

type KeyServices = Pick<Engines, 'offload'> & { config: Pick<Config, 'SIGNING_PRIVATE_KEY' | 'ENCRYPTION_KEY'> };

// One key per configuration (a test's second API with its own configuration loads its own).
const cached = new WeakMap<object, Promise<SigningKey>>();

export function getSigningKey(s: KeyServices): Promise<SigningKey> {
  let key = cached.get(s.config);
  if (!key) {
    key = load(s).catch((err: unknown) => {
      cached.delete(s.config);
      throw err;
    });
    cached.set(s.config, key);
  }
  return key;
}

async function load(s: KeyServices): Promise<SigningKey> {
  if (s.config.SIGNING_PRIVATE_KEY) return loadSigningKey(s.config.SIGNING_PRIVATE_KEY);
  const pem = await storedServiceKey(s, KEY_ID, () => s.offload.run(signingKeyTask, undefined, { timeoutMs: KEY_GENERATION_TIMEOUT_MS }));
  return loadSigningKey(pem);
}
