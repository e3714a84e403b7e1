/** A vendor's events, as the outbox records them for the feed, webhooks and consumers. */
import type { Principal } from '../../platform/security/principal';
import { actorOf, recordEvent, type EventRecorder } from '../../platform/outbox/record-event';
import type { EventType } from '../../models/event';
import { vendorEventData, type VendorDoc } from '../../models/vendor';

export function emitVendorEvent(s: EventRecorder, p: Principal, type: EventType, v: VendorDoc, summary: string) {
  return recordEvent(s, {
    organizationId: p.organizationId,
    type,
    data: vendorEventData(v),
    actor: actorOf(p),
    resource: { type: 'vendor', id: v.id },
    summary,
  });
}
