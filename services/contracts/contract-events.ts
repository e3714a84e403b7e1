/** A contract's events, as the outbox records them for the feed, webhooks and consumers. */
import type { Principal } from '../../platform/security/principal';
import { actorOf, recordEvent, type EventRecorder } from '../../platform/outbox/record-event';
import type { EventType } from '../../models/event';
import { contractEventData, type ContractDoc } from '../../models/contract';

export function emitContractEvent(
  s: EventRecorder,
  p: Principal,
  type: EventType,
  c: ContractDoc,
  summary: string,
  extra: Record<string, unknown> = {},
) {
  return recordEvent(s, {
    organizationId: p.organizationId,
    type,
    data: { ...contractEventData(c), ...extra },
    actor: actorOf(p),
    resource: { type: 'contract', id: c.id },
    summary,
  });
}
