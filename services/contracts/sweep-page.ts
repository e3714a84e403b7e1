/**
 * The page both daily contract sweeps read: active contracts in id order, across all
 * organizations, after where the last page ended.
 */
import { trusted, Types } from 'mongoose';
import { Contract } from '../../models/contract';
import type { SweepPage } from '../../workflows/contract-schedules.shared';

export const DAY_MS = 24 * 3600 * 1000;

/** Midnight UTC of the day of `iso`: end dates are stored as midnight UTC of their date. */
export const dayStart = (iso: string) => new Date(Math.floor(new Date(iso).getTime() / DAY_MS) * DAY_MS);

/** Active contracts whose end date is in `endDate` (a range of midnights UTC). */
export async function activeContractsEnding(endDate: { $lt?: Date; $gte?: Date; $lte?: Date }, { limit, afterId }: SweepPage) {
  return Contract.find({
    status: 'active',
    end_date: trusted(endDate),
    ...(afterId ? { _id: trusted({ $gt: new Types.ObjectId(afterId) }) } : {}),
  })
    .sort({ _id: 1 })
    .limit(limit);
}

/** Where the next page starts: after the last contract of a full page, nowhere after a short one. */
export const nextAfterId = (page: readonly { id: string }[], limit: number): string | null =>
  page.length === limit ? page.at(-1)!.id : null;
