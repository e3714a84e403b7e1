/** The compliance task list's query: filters by status, priority, regulation and contract. */
import { Types } from 'mongoose';
import { z } from 'zod';
import { choice, objectId } from '../../platform/input';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { TASK_PRIORITIES, TASK_STATUSES } from '../../models/compliance-task';

export const taskStatus = choice(TASK_STATUSES);
export const taskPriority = choice(TASK_PRIORITIES);

export const taskListQuery = pageQuery.extend({
  status: taskStatus.optional(),
  priority: taskPriority.optional(),
  regulation_type: z.string().trim().min(1).max(100).optional(),
  contract_id: objectId('must be a contract id').optional(),
});

export function taskListFilter(q: z.infer<typeof taskListQuery>): ListFilter {
  return {
    equal: {
      ...(q.status ? { status: q.status } : {}),
      ...(q.priority ? { priority: q.priority } : {}),
      ...(q.regulation_type ? { regulation_type: q.regulation_type } : {}),
      ...(q.contract_id ? { contract_id: new Types.ObjectId(q.contract_id) } : {}),
    },
  };
}
