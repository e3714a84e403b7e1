/**
 * Mail as a consumer of the event relay (platform/outbox/relay.ts): the signature events that mail
 * someone. Idempotent like every consumer: each message has a dedupe key.
 */
import type { EventConsumer } from '../../platform/outbox/relay';
import { findSignature, mailSignatureDeclined, mailSignatureExpired, mailSignersDue } from './signatures';

export const mailConsumer: EventConsumer = {
  name: 'mail',
  async consume(s, event) {
    if (!event.type.startsWith('signature.') || event.resource_type !== 'signature') return;
    const sig = await findSignature(event.organization_id, event.resource_id);
    if (!sig) return;
    const data = event.data as { signer_name?: string; signer_email?: string; reason?: string };
    switch (event.type) {
      // The request went out, or a signer signed (signature.completed is per signer): whoever's turn it is now.
      case 'signature.requested':
      case 'signature.completed':
        return mailSignersDue(s, sig);
      case 'signature.declined':
        return mailSignatureDeclined(s, sig, {
          name: data.signer_name ?? 'A signer',
          email: data.signer_email ?? '',
          reason: data.reason ?? null,
        });
      case 'signature.expired':
        return mailSignatureExpired(s, sig);
      default:
        return;
    }
  },
};
