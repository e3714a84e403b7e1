/**
 * Analytics. The dashboard counts records by aggregation in the store; spend and its
 * forecast come from contract values by month (services/analytics/spend.ts, services/analytics/forecast.ts). The
 * activity feed pages through the event outbox: every event is also an activity entry
 * with its actor, resource and one-line summary.
 */
import { Router } from 'express';
import { trusted, type Model } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { forecastSeries } from '../../services/analytics/forecast';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { listPage } from '../../platform/lists/list-index';
import { monthRange, monthStart, spendByMonth, type SpendRecord } from '../../services/analytics/spend';
import { orgFilter } from '../../models/base';
import { ComplianceTask } from '../../models/compliance-task';
import { Contract } from '../../models/contract';
import { EVENT_TYPES, activityList } from '../../models/event';
import { Signature } from '../../models/signature';
import { Vendor } from '../../models/vendor';
import { operation, pageOf, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/input';
import { authorize, principalOf } from '../http/middleware/auth';

/** `type` is an event name (`contract.created`) or the resource part of one (`contract`). */
const EVENT_CATEGORIES = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))];
const activityQuery = pageQuery.extend({
  type: z
    .enum([...EVENT_TYPES, ...EVENT_CATEGORIES], { error: `must be an event name or one of ${EVENT_CATEGORIES.join(', ')}` })
    .optional(),
});

/** The feed's filter: one event type, or every type of a category (`contract` → `contract.*`). */
export function activityFilter(type: z.infer<typeof activityQuery>['type']): ListFilter {
  if (!type) return {};
  if (type.includes('.')) return { equal: { type } };
  return { where: { type: trusted({ $in: EVENT_TYPES.filter((t) => t.startsWith(`${type}.`)) }) }, derived: { category: type } };
}

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
const spendQuery = z.object({
  period: z.enum(['monthly'], 'must be monthly').default('monthly'),
  months: monthsParam(MAX_SPEND_MONTHS, 12),
});
const forecastQuery = z.object({ months_ahead: monthsParam(MAX_FORECAST_MONTHS, 6) });

const month = z.string().meta({ description: 'YYYY-MM' });
const dashboardResponse = z.object({
  contracts: z.object({ total: z.int(), active: z.int(), draft: z.int(), expired: z.int() }),
  signatures: z.object({
    total_sent: z.int(),
    completed: z.int(),
    pending: z.int(),
    completion_rate: z.number().meta({ description: 'completed ÷ total_sent in [0, 1]; 0 when nothing was sent' }),
  }),
  compliance: z.object({
    tasks_pending: z.int().meta({ description: 'Open tasks (pending or in progress)' }),
    tasks_resolved: z.int(),
  }),
  vendors: z.object({ total: z.int(), high_risk: z.int().meta({ description: 'Vendors at risk level high or critical' }) }),
});
const spendResponse = z.object({
  period: z.literal('monthly'),
  data: z.array(z.object({ month, spend: z.number(), contracts: z.int().meta({ description: 'Contracts with a value in the month' }) })),
  total_spend: z.number(),
  average_per_contract: z.number(),
});
const forecastResponse = z.object({
  forecast: z.array(z.object({ month, predicted_spend: z.number().min(0), confidence: z.number().min(0).max(1) })),
  trend: z.enum(['increasing', 'decreasing', 'stable']),
  method: z.literal('linear_regression'),
  history: z.array(z.object({ month, spend: z.number() })).meta({ description: 'The complete months the trend was fitted to' }),
});
const activityResponse = pageOf(
  'activities',
  z.object({
    id: idSchema,
    type: z.enum(EVENT_TYPES),
    actor: z.object({ type: z.string(), id: idSchema.nullable(), name: z.string().nullable() }),
    resource_type: z.string(),
    resource_id: idSchema,
    summary: z.string(),
    timestamp,
  }),
);

operation({
  path: '/analytics/dashboard',
  method: 'get',
  tag: 'Analytics',
  summary: 'Contract, signature, compliance and vendor counts',
  responses: { 200: { description: 'Counts of the organization', schema: dashboardResponse } },
});
operation({
  path: '/analytics/spend',
  method: 'get',
  tag: 'Analytics',
  summary: 'Legal spend by month',
  description:
    'Contract values by month of start_date (else created_at) over the last `months` months, the current one included; empty months are zeros.',
  query: spendQuery,
  responses: { 200: { description: 'Spend by month', schema: spendResponse } },
});
operation({
  path: '/analytics/forecast',
  method: 'get',
  tag: 'Analytics',
  summary: 'Spend forecast',
  description:
    'A least-squares trend over the complete months of spend (the current month is incomplete and left out), extrapolated from the month after the current one. Confidence falls with distance and with the noise of the series.',
  query: forecastQuery,
  responses: { 200: { description: 'Forecast points and trend', schema: forecastResponse } },
});
operation({
  path: '/analytics/activity',
  method: 'get',
  tag: 'Analytics',
  summary: 'Activity feed of the organization, newest first',
  query: activityQuery,
  responses: { 200: { description: 'A page of activities', schema: activityResponse } },
});

/** Record counts by one field, computed by the store. */
async function countBy(model: Pick<Model<unknown>, 'aggregate'>, organizationId: string, field: string): Promise<Map<unknown, number>> {
  const rows = await model.aggregate<{ _id: unknown; n: number }>([
    { $match: orgFilter(organizationId) },
    { $group: { _id: `$${field}`, n: { $sum: 1 } } },
  ]);
  return new Map(rows.map((r) => [r._id, r.n]));
}

const sum = (counts: Map<unknown, number>, keys?: readonly unknown[]) =>
  [...counts].reduce((a, [k, n]) => a + (!keys || keys.includes(k) ? n : 0), 0);

/** Contract values starting (or, without a start date, created) in [from, to). */
async function spendRecords(organizationId: string, from: Date, to: Date): Promise<SpendRecord[]> {
  const range = trusted({ $gte: from, $lt: to });
  const rows = await Contract.find(
    { ...orgFilter(organizationId), value: trusted({ $ne: null }), $or: [{ start_date: range }, { start_date: null, created_at: range }] },
    { value: 1, start_date: 1, created_at: 1 },
  ).lean();
  return rows.map((r) => ({ value: r.value ?? 0, start_date: r.start_date ?? null, created_at: r.created_at }));
}

export function analyticsRouter(s: Services): Router {
  const router = Router();

  router.get('/dashboard', authorize('analytics:read'), async (req, res) => {
    const org = principalOf(req).organizationId;
    const [contracts, signatures, tasks, vendors] = await Promise.all([
      countBy(Contract, org, 'status'),
      countBy(Signature, org, 'status'),
      countBy(ComplianceTask, org, 'status'),
      countBy(Vendor, org, 'risk_level'),
    ]);
    // Every signature request is sent when it is created.
    const sent = sum(signatures);
    const completed = signatures.get('completed') ?? 0;
    res.json({
      contracts: {
        total: sum(contracts),
        active: contracts.get('active') ?? 0,
        draft: contracts.get('draft') ?? 0,
        expired: contracts.get('expired') ?? 0,
      },
      signatures: { total_sent: sent, completed, pending: signatures.get('pending') ?? 0, completion_rate: sent ? completed / sent : 0 },
      compliance: { tasks_pending: sum(tasks, ['pending', 'in_progress']), tasks_resolved: tasks.get('resolved') ?? 0 },
      vendors: { total: sum(vendors), high_risk: sum(vendors, ['high', 'critical']) },
    } satisfies z.infer<typeof dashboardResponse>);
  });

  router.get('/spend', authorize('analytics:read'), async (req, res) => {
    const q = spendQuery.parse(req.query);
    const now = new Date();
    const records = await spendRecords(principalOf(req).organizationId, monthStart(now, 1 - q.months), monthStart(now, 1));
    const data = spendByMonth(records, monthRange(now, q.months));
    const total = data.reduce((a, m) => a + m.spend, 0);
    const contracts = data.reduce((a, m) => a + m.contracts, 0);
    res.json({
      period: q.period,
      data,
      total_spend: Math.round(total * 100) / 100,
      average_per_contract: contracts ? Math.round((total / contracts) * 100) / 100 : 0,
    } satisfies z.infer<typeof spendResponse>);
  });

  router.get('/forecast', authorize('analytics:read'), async (req, res) => {
    const q = forecastQuery.parse(req.query);
    const now = new Date();
    const records = await spendRecords(principalOf(req).organizationId, monthStart(now, -FORECAST_HISTORY_MONTHS), monthStart(now));
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
    res.json({
      forecast: fit.points.map((p, i) => ({ month: ahead[i]!, predicted_spend: p.predicted, confidence: p.confidence })),
      trend: fit.trend,
      method: 'linear_regression',
      history: history.map((m) => ({ month: m.month, spend: m.spend })),
    } satisfies z.infer<typeof forecastResponse>);
  });

  router.get('/activity', authorize('analytics:read'), async (req, res) => {
    const q = activityQuery.parse(req.query);
    const { items, total } = await listPage(s, activityList, principalOf(req).organizationId, activityFilter(q.type), q);
    res.json({ activities: items, total, page: q.page, page_size: q.page_size });
  });

  return router;
}
