/**
 * Legal spend by month and its forecast, from the organization's contract values: this loads
 * them, services/analytics/spend.ts buckets them and services/analytics/forecast.ts fits the trend.
 */
import { trusted } from 'mongoose';
import { z } from 'zod';
import { orgFilter } from '../../models/base';
import { Contract } from '../../models/contract';
import { forecastSeries } from './forecast';
import { monthRange, monthStart, spendByMonth, type SpendRecord } from './spend';

const MAX_SPEND_MONTHS = 60;
const MAX_FORECAST_MONTHS = 24;
/** Complete months the forecast fits at most (months before the first contract are left out). */
const FORECAST_HISTORY_MONTHS = 24;

const monthsParam = (max: number, fallback: number) =>
  z.coerce
    .number('must be an integer')
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .default(fallback);
export const spendQuery = z.object({
  period: z.enum(['monthly'], 'must be monthly').default('monthly'),
  months: monthsParam(MAX_SPEND_MONTHS, 12),
});
export const forecastQuery = z.object({ months_ahead: monthsParam(MAX_FORECAST_MONTHS, 6) });

/** Contract values starting (or, without a start date, created) in [from, to). */
async function spendRecords(organizationId: string, from: Date, to: Date): Promise<SpendRecord[]> {
  const range = trusted({ $gte: from, $lt: to });
  const rows = await Contract.find(
    { ...orgFilter(organizationId), value: trusted({ $ne: null }), $or: [{ start_date: range }, { start_date: null, created_at: range }] },
    { value: 1, start_date: 1, created_at: 1 },
  ).lean();
  return rows.map((r) => ({ value: r.value ?? 0, start_date: r.start_date ?? null, created_at: r.created_at }));
}

/** Spend by month over the last `months` months, the current one included. */
export async function spendReport(organizationId: string, q: z.infer<typeof spendQuery>, now = new Date()) {
  const records = await spendRecords(organizationId, monthStart(now, 1 - q.months), monthStart(now, 1));
  const data = spendByMonth(records, monthRange(now, q.months));
  const total = data.reduce((a, m) => a + m.spend, 0);
  const contracts = data.reduce((a, m) => a + m.contracts, 0);
  return {
    period: q.period,
    data,
    total_spend: Math.round(total * 100) / 100,
    average_per_contract: contracts ? Math.round((total / contracts) * 100) / 100 : 0,
  };
}

/** The trend of the complete months of spend, extrapolated from the month after the current one. */
export async function spendForecast(organizationId: string, q: z.infer<typeof forecastQuery>, now = new Date()) {
  const records = await spendRecords(organizationId, monthStart(now, -FORECAST_HISTORY_MONTHS), monthStart(now));
  const months = spendByMonth(records, monthRange(now, FORECAST_HISTORY_MONTHS, -1));
  // Months before the organization's first contract are no history, not zero spend.
  const first = months.findIndex((m) => m.contracts > 0);
  const history = first < 0 ? [] : months.slice(first);
  // The current month is skipped (gap 1): it is neither complete history nor ahead.
  const fit = forecastSeries(
    history.map((m) => m.spend),
    q.months_ahead,
    1,
  );
  const ahead = monthRange(now, q.months_ahead, q.months_ahead);
  return {
    forecast: fit.points.map((p, i) => ({ month: ahead[i]!, predicted_spend: p.predicted, confidence: p.confidence })),
    trend: fit.trend,
    method: 'linear_regression' as const,
    history: history.map((m) => ({ month: m.month, spend: m.spend })),
  };
}
