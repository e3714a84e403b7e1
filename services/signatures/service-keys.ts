/**
 * The service's generated keys in the store (encrypted), shared by the API and every worker:
 * the stored key is read first, and one is generated (off the event loop, by `generate`)
 * only when none is stored. Two processes generating at once both insert; the first wins and
 * both use the winner's.
 */
import type { Config } from '../../platform/config';
import { decryptSecret, encryptSecret } from '../../platform/security/crypto';
import { isDuplicateKey } from '../../platform/mongo';
import { ServiceKey } from '../../models/service-key';

/** A generous bound: an RSA-3072 key takes about a second, a slow machine several. */
export const KEY_GENERATION_TIMEOUT_MS = 120_000;

/** The stored secret `id` in clear, generated and stored first when there is none. */
export async function storedServiceKey(
  s: { config: Pick<Config, 'ENCRYPTION_KEY'> },
  id: string,
  generate: () => Promise<string>,
): Promise<string> {
  const found = await ServiceKey.findById(id).lean();
  if (found) return decryptSecret(s.config, found.private_key_encrypted);
  const generated = await generate();
  try {
    await ServiceKey.create({ _id: id, private_key_encrypted: encryptSecret(s.config, generated) });
    return generated;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const winner = await ServiceKey.findById(id).orFail().lean();
  return decryptSecret(s.config, winner.private_key_encrypted);
}
