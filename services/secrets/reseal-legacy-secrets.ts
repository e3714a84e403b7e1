/**
 * The one-time migration to separated keys (platform/security/crypto.ts): every value still
 * sealed under the raw ENCRYPTION_KEY (`v1:`) is opened and sealed again under the derived
 * encryption key (`v2:`). The worker runs it at start, before it polls; it is idempotent (a
 * second run finds nothing) and each write is conditional on the value it read, so a secret
 * changed meanwhile is left as its writer stored it. Until it has run, `decryptSecret` still
 * opens `v1:` values, so nothing stops working during a deployment.
 */
import type { Collection } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { decryptSecret, encryptSecret, isLegacySealed } from '../../platform/security/crypto';
import { User } from '../../models/user';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { Integration } from '../../models/integration';
import { ServiceKey } from '../../models/service-key';
import { OutgoingMail } from '../../models/outgoing-mail';
import { Signature } from '../../models/signature';

// The driver's collections: a reseal changes no plaintext, so no model hook has anything to do.
const LEGACY = { $regex: '^v1:' };

/** Every sealed field outside arrays, by collection. */
const FIELDS: Array<[Collection, string[]]> = [
  [User.collection, ['mfa_secret_encrypted', 'mfa_pending_secret_encrypted']],
  [WebhookSubscription.collection, ['secret_encrypted']],
  [Integration.collection, ['credentials_encrypted']],
  [ServiceKey.collection, ['private_key_encrypted']],
  [OutgoingMail.collection, ['content_sealed']],
];

/** Reseals every legacy value; answers how many were resealed. */
export async function resealLegacySecrets(s: Pick<Engines, 'config'>): Promise<number> {
  const reseal = (sealed: string) => encryptSecret(s.config, decryptSecret(s.config, sealed));
  let count = 0;
  for (const [collection, fields] of FIELDS) {
    for (const field of fields) {
      for await (const doc of collection.find({ [field]: LEGACY }, { projection: { [field]: 1 } })) {
        const sealed: unknown = doc[field];
        if (typeof sealed !== 'string' || !isLegacySealed(sealed)) continue;
        const r = await collection.updateOne({ _id: doc._id, [field]: sealed }, { $set: { [field]: reseal(sealed) } });
        count += r.modifiedCount;
      }
    }
  }
  // Each signer's sealed link token, by its index in the request.
  const signatures = Signature.collection;
  for await (const sig of signatures.find({ 'signers.token_sealed': LEGACY }, { projection: { signers: 1 } })) {
    const signers = (sig.signers ?? []) as Array<{ token_sealed?: unknown }>;
    for (const [i, signer] of signers.entries()) {
      const sealed = signer.token_sealed;
      if (typeof sealed !== 'string' || !isLegacySealed(sealed)) continue;
      const path = `signers.${i}.token_sealed`;
      const r = await signatures.updateOne({ _id: sig._id, [path]: sealed }, { $set: { [path]: reseal(sealed) } });
      count += r.modifiedCount;
    }
  }
  return count;
}
