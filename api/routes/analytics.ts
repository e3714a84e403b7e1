/**
 * Analytics. The activity feed pages through the event outbox: every event is also an
 * activity entry with its actor, resource and one-line summary.
 */
import { Router } from 'express';
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../lib/services';
import { pageQuery, skipOf } from '../../lib/pagination';
import { orgFilter } from '../../models/base';
import { EVENT_TYPES, Event, activityView } from '../../models/event';
import { authorize, principalOf } from '../middleware/auth';

/** `type` is an event name (`contract.created`) or the resource part of one (`contract`). */
const EVENT_CATEGORIES = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))];
const activityQuery = pageQuery.extend({
  type: z.enum([...EVENT_TYPES, ...EVENT_CATEGORIES], { error: `must be an event name or one of ${EVENT_CATEGORIES.join(', ')}` }).optional(),
});

export function analyticsRouter(_s: Services): Router {
  const router = Router();

  router.get('/activity', authorize('analytics:read'), async (req, res) => {
    const q = activityQuery.parse(req.query);
    const filter: Record<string, unknown> = { ...orgFilter(principalOf(req).organizationId) };
    if (q.type) filter.type = q.type.includes('.') ? q.type : trusted({ $in: EVENT_TYPES.filter((t) => t.startsWith(`${q.type}.`)) });
    const [events, total] = await Promise.all([
      Event.find(filter).sort({ occurred_at: -1, _id: -1 }).skip(skipOf(q)).limit(q.page_size),
      Event.countDocuments(filter),
    ]);
    res.json({ activities: events.map(activityView), total, page: q.page, page_size: q.page_size });
  });

  return router;
}
