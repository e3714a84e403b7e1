/**
 * Analytics: the dashboard counts (services/analytics/dashboard-counts.ts), spend by month
 * and its forecast (services/analytics/spend-report.ts) and the activity feed
 * (services/analytics/activity-feed.ts).
 */
import { Router } from 'express';
import type { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { activityFeed, activityQuery } from '../../services/analytics/activity-feed';
import { dashboardCounts } from '../../services/analytics/dashboard-counts';
import { forecastQuery, spendForecast, spendQuery, spendReport } from '../../services/analytics/spend-report';
import { authorize, principalOf } from '../http/middleware/auth';
import { sendPage } from '../http/pages';
// The import registers the operations; the response types check what the use cases answer.
import '../operations/analytics';
import type { dashboardResponse, forecastResponse, spendResponse } from '../operations/analytics';

export function analyticsRouter(s: Engines): Router {
  const router = Router();
  const read = authorize('analytics:read');

  router.get('/dashboard', read, async (req, res) => {
    res.json((await dashboardCounts(principalOf(req).organizationId)) satisfies z.infer<typeof dashboardResponse>);
  });

  router.get('/spend', read, async (req, res) => {
    const q = spendQuery.parse(req.query);
    res.json((await spendReport(principalOf(req).organizationId, q)) satisfies z.infer<typeof spendResponse>);
  });

  router.get('/forecast', read, async (req, res) => {
    const q = forecastQuery.parse(req.query);
    res.json((await spendForecast(principalOf(req).organizationId, q)) satisfies z.infer<typeof forecastResponse>);
  });

  router.get('/activity', read, async (req, res) => {
    const q = activityQuery.parse(req.query);
    sendPage(res, 'activities', q, await activityFeed(s, principalOf(req).organizationId, q));
  });

  return router;
}
