/** Revoking an API key: it stops at once (authentication reads the key on every request). */
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { inOrg } from '../../models/base';
import { ApiKey } from '../../models/api-key';
import type { EventRecorder } from '../../platform/outbox/record-event';
import { recordApiKeyEvent } from './create-api-key';

export async function revokeApiKey(s: EventRecorder, p: Principal, id: unknown): Promise<void> {
  const filter = inOrg(p.organizationId, id);
  const deleted = filter && (await ApiKey.findOneAndDelete(filter));
  if (!deleted) throw notFound('API key');
  await recordApiKeyEvent(s, p, deleted, 'team.api_key_revoked', `${p.name} revoked the API key "${deleted.name}"`);
}
