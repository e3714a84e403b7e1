/** A contract's events, as the outbox records them for the feed, webhooks and consumers. */
import type { Principal } from '../../platform/security/principal';
import { actorOf, recordEvent, type Actor } from '../../platform/outbox/record-event';
import type { EventType } from '../../models/event';
import { contractEventData, type ContractDoc } from '../../models/contract';

export function emitContractEvent(p: Principal, type: EventType, c: ContractDoc, summary: string, extra: Record<string, unknown> = {}) {
  return recordContractEvent(p.organizationId, actorOf(p), type, c, summary, extra);
}

/** The same for a change no caller asked for (a signature request's completion): `actor` says who made it. */
export function recordContractEvent(
  organizationId: string,
  actor: Actor,
  type: EventType,
  c: ContractDoc,
  summary: string,
  extra: Record<string, unknown> = {},
) {
  return recordEvent({
    organizationId,
    type,
    data: { ...contractEventData(c), ...extra },
    actor,
    resource: { type: 'contract', id: c.id },
    summary,
  });
}
