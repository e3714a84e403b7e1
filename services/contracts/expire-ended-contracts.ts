/**
 * The daily expiry sweep, a page at a time across all organizations (each event goes to the
 * contract's own organization): active contracts past their end date become expired.
 */
import { recordEvent, type EventRecorder } from '../../platform/outbox/record-event';
import { dayOf } from '../../platform/dates';
import { Contract, contractEventData } from '../../models/contract';
import type { SweepPage, SweepResult } from '../../workflows/contract-schedules.shared';
import { activeContractsEnding, dayStart, nextAfterId } from './sweep-page';

/** One page of active contracts whose end date has passed (the end date itself still counts as in force). */
export async function expireEndedContracts(s: EventRecorder, page: SweepPage): Promise<SweepResult> {
  const due = await activeContractsEnding({ $lt: dayStart(page.asOf) }, page);
  let done = 0;
  for (const c of due) {
    // Conditional on still being active: a concurrent edit or an earlier attempt wins, and no second event follows.
    const expired = await Contract.findOneAndUpdate(
      { _id: c._id, status: 'active' },
      { $set: { status: 'expired' } },
      { returnDocument: 'after' },
    );
    if (!expired) continue;
    await recordEvent(s, {
      organizationId: expired.organization_id.toHexString(),
      type: 'contract.updated',
      data: { ...contractEventData(expired), changed_fields: ['status'] },
      actor: { type: 'system', id: null, name: 'contract expiry' },
      resource: { type: 'contract', id: expired.id },
      summary: `Contract "${expired.title}" expired (ended ${dayOf(expired.end_date!)})`,
    });
    done++;
  }
  return { done, nextAfterId: nextAfterId(due, page.limit) };
}
