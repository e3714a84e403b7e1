/**
 * Activities of the daily contract schedules, across all organizations (each event goes
 * to the contract's own organization): expire active contracts past their end date, and
 * record `contract.renewal_due` once per contract and end date when the end is near.
 * Both take the day from the workflow and work a page at a time. And the finishing of a
 * recorded contract deletion (services/contracts/contract-deletion.ts).
 */
import { trusted, Types } from 'mongoose';
import type { Services } from '../platform/engines';
import { recordEvent } from '../platform/outbox/record-event';
import { Contract, contractEventData } from '../models/contract';
import { Event } from '../models/event';
import { dayOf } from '../platform/dates';
import { closeContract } from '../services/contracts/contract-deletion';
import type { ContractDeletion } from '../workflows/contract-deletion.shared';
import { removeContract } from '../services/search/contract-index';

export interface SweepPage {
  /** The workflow's current time (ISO). */
  asOf: string;
  limit: number;
  /** Resume after this contract id. */
  afterId?: string | null;
}

export interface SweepResult {
  /** Contracts changed or reminded in this page. */
  done: number;
  /** The last contract id looked at, or null when the page was the last. */
  nextAfterId: string | null;
}

const DAY_MS = 24 * 3600 * 1000;
/** Midnight UTC of the day of `iso`: end dates are stored as midnight UTC of their date. */
const dayStart = (iso: string) => new Date(Math.floor(new Date(iso).getTime() / DAY_MS) * DAY_MS);
const after = (id: string | null | undefined) => (id ? { _id: trusted({ $gt: new Types.ObjectId(id) }) } : {});

export function createContractActivities(s: Services) {
  return {
    /** The store part of a deletion again (idempotent), then the contract's chunks out of the index. */
    async finishContractDeletion(input: ContractDeletion): Promise<void> {
      await closeContract(s, input);
      await removeContract(s, input.organizationId, input.contractId);
    },

    /** One page of active contracts whose end date has passed (the end date itself still counts as in force). */
    async expireEndedContracts({ asOf, limit, afterId }: SweepPage): Promise<SweepResult> {
      const today = dayStart(asOf);
      const due = await Contract.find({ status: 'active', end_date: trusted({ $lt: today }), ...after(afterId) })
        .sort({ _id: 1 })
        .limit(limit);
      let done = 0;
      for (const c of due) {
        // Conditional on still being active: a concurrent edit or an earlier attempt wins, and no second event follows.
        const expired = await Contract.findOneAndUpdate(
          { _id: c._id, status: 'active' },
          { $set: { status: 'expired' } },
          { returnDocument: 'after' },
        );
        if (!expired) continue;
        await recordEvent({
          organizationId: expired.organization_id.toHexString(),
          type: 'contract.updated',
          data: { ...contractEventData(expired), changed_fields: ['status'] },
          actor: { type: 'system', id: null, name: 'contract expiry' },
          resource: { type: 'contract', id: expired.id },
          summary: `Contract "${expired.title}" expired (ended ${dayOf(expired.end_date!)})`,
        });
        done++;
      }
      return { done, nextAfterId: due.length === limit ? due.at(-1)!.id : null };
    },

    /**
     * One page of active contracts ending within the reminder window (today up to
     * RENEWAL_REMINDER_DAYS ahead). A window rather than one exact day, so a run missed
     * while the worker was down is made up by the next one.
     */
    async remindRenewals({ asOf, limit, afterId }: SweepPage): Promise<SweepResult> {
      const today = dayStart(asOf);
      const until = new Date(today.getTime() + s.config.RENEWAL_REMINDER_DAYS * DAY_MS);
      const page = await Contract.find({
        status: 'active',
        end_date: trusted({ $gte: today, $lte: until }),
        ...after(afterId),
      })
        .sort({ _id: 1 })
        .limit(limit);
      let done = 0;
      for (const c of page) {
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
      return { done, nextAfterId: page.length === limit ? page.at(-1)!.id : null };
    },
  };
}

export type ContractActivities = ReturnType<typeof createContractActivities>;
