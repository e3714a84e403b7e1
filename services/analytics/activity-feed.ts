/**
 * The activity feed pages through the event outbox: every event is also an activity entry
 * with its actor, resource and one-line summary (models/event.ts).
 */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { listPage } from '../../platform/lists/list-index';
import type { ListFilter } from '../../platform/lists/lists';
import { pageQuery } from '../../platform/lists/pagination';
import { EVENT_TYPES, activityList } from '../../models/event';

/** `type` is an event name (`contract.created`) or the resource part of one (`contract`). */
const EVENT_CATEGORIES = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))];
export const activityQuery = pageQuery.extend({
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

/** One page of the organization's activities, newest first. */
export function activityFeed(s: Engines, organizationId: string, q: z.infer<typeof activityQuery>) {
  return listPage(s, activityList, organizationId, activityFilter(q.type), q);
}
