/** Reading compliance: a scan by id, and the task list, by status, priority, regulation and contract. */
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { listPage } from '../../platform/lists/list-index';
import { choice, objectId } from '../../platform/input';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { ComplianceScan } from '../../models/compliance-scan';
import { ComplianceTask, TASK_PRIORITIES, TASK_STATUSES, taskList } from '../../models/compliance-task';

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

export const getComplianceScan = (p: Pick<Principal, 'organizationId'>, id: unknown) => findOwned(ComplianceScan, p, id, 'Compliance scan');

export const getComplianceTask = (p: Pick<Principal, 'organizationId'>, id: unknown) => findOwned(ComplianceTask, p, id, 'Compliance task');

/** A page of the organization's tasks and its exact total. */
export function listComplianceTasks(s: Engines, p: Pick<Principal, 'organizationId'>, q: z.infer<typeof taskListQuery>) {
  return listPage(s, taskList, p.organizationId, taskListFilter(q), q);
}
