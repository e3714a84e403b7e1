/**
 * The daily renewal reminders, a page at a time across all organizations (each event goes
 * to the contract's own organization): `contract.renewal_due` once per contract and end
 * date when the end is near.
 */
import type { Engines } from '../../platform/engines';
import { recordEvent } from '../../platform/outbox/record-event';
import { dayOf } from '../../platform/dates';
import { contractEventData } from '../../models/contract';
import { Event } from '../../models/event';
import type { SweepPage, SweepResult } from '../../workflows/contract-schedules.shared';
import { activeContractsEnding, DAY_MS, dayStart, nextAfterId } from './sweep-page';

/**
 * One page of active contracts ending within the reminder window (today up to
 * RENEWAL_REMINDER_DAYS ahead). A window rather than one exact day, so a run missed
 * while the worker was down is made up by the next one.
 */
export async function remindRenewals(s: Engines, page: SweepPage): Promise<SweepResult> {
  const today = dayStart(page.asOf);
  const until = new Date(today.getTime() + s.config.RENEWAL_REMINDER_DAYS * DAY_MS);
  const ending = await activeContractsEnding({ $gte: today, $lte: until }, page);
  let done = 0;
  for (const c of ending) {
    const endDate = dayOf(c.end_date!);
    // Once per contract and end date: an extended contract is reminded again for its new end.
    const reminded = await Event.exists({
      organization_id: c.organization_id,
      type: 'contract.renewal_due',
      resource_id: c.id,
      'data.end_date': endDate,
    });
    if (reminded) continue;
    const days = Math.round((c.end_date!.getTime() - today.getTime()) / DAY_MS);
    await recordEvent({
      organizationId: c.organization_id.toHexString(),
      type: 'contract.renewal_due',
      data: { ...contractEventData(c), end_date: endDate, days_until_end: days },
      actor: { type: 'system', id: null, name: 'renewal reminders' },
      resource: { type: 'contract', id: c.id },
      summary: `Contract "${c.title}" ends on ${endDate} (in ${days} day${days === 1 ? '' : 's'}): renewal due`,
    });
    done++;
  }
  return { done, nextAfterId: nextAfterId(ending, page.limit) };
}
