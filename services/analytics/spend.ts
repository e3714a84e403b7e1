/**
 * Legal spend by month, from contract values: each contract counts in the month of its
 * `start_date`, or of `created_at` when it has none. Pure: services/analytics/spend-report.ts loads the values.
 */

/** `YYYY-MM` of a date, in UTC. */
export const monthOf = (d: Date): string => d.toISOString().slice(0, 7);

/** The first instant of the month `offset` months from the month of `d` (UTC). */
export function monthStart(d: Date, offset = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1));
}

/** The `count` months ending `endOffset` months from the month of `now`, oldest first. */
export function monthRange(now: Date, count: number, endOffset = 0): string[] {
  return Array.from({ length: count }, (_, i) => monthOf(monthStart(now, endOffset - count + 1 + i)));
}

export interface SpendRecord {
  value: number;
  start_date: Date | null;
  created_at: Date;
}

export interface MonthSpend {
  month: string;
  spend: number;
  contracts: number;
}

/** Spend and contract count for every month in `months`, zeros where nothing started. */
export function spendByMonth(records: readonly SpendRecord[], months: readonly string[]): MonthSpend[] {
  const buckets = new Map(months.map((m) => [m, { month: m, spend: 0, contracts: 0 }]));
  for (const r of records) {
    const bucket = buckets.get(monthOf(r.start_date ?? r.created_at));
    if (!bucket) continue;
    bucket.spend += r.value;
    bucket.contracts += 1;
  }
  // Cents, so sums of decimal values print as the amounts they are.
  return [...buckets.values()].map((b) => ({ ...b, spend: Math.round(b.spend * 100) / 100 }));
}
