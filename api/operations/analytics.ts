/** The OpenAPI description of the analytics operations (api/routes/analytics.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { EVENT_TYPES } from '../../models/event';
import { activityQuery } from '../../services/analytics/activity-feed';
import { forecastQuery, spendQuery } from '../../services/analytics/spend-report';
import { operation, pageOf, timestamp } from '../http/openapi';

const month = z.string().meta({ description: 'YYYY-MM' });
export const dashboardResponse = z.object({
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
export const spendResponse = z.object({
  period: z.literal('monthly'),
  data: z.array(z.object({ month, spend: z.number(), contracts: z.int().meta({ description: 'Contracts with a value in the month' }) })),
  total_spend: z.number(),
  average_per_contract: z.number(),
});
export const forecastResponse = z.object({
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
