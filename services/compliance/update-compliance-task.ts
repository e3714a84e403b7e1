/** Working a compliance task: its status, priority and due date. */
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { badRequest } from '../../platform/errors';
import { complianceErrors } from './errors';
import { ComplianceTask, OPEN_STATUSES, type ComplianceTaskDoc } from '../../models/compliance-task';
import type { Principal } from '../../platform/security/principal';
import { getComplianceTask, taskPriority, taskStatus } from './list-compliance-tasks';
import { makeContractsSearchable } from '../search/reflect-contracts';

export const updateTaskBody = z.object({
  status: taskStatus.optional(),
  priority: taskPriority.optional(),
  due_date: z.iso.date('must be a date (YYYY-MM-DD)').optional(),
});

/** Resolving stamps `resolved_at`, reopening clears it. */
export async function updateComplianceTask(
  s: Engines,
  p: Principal,
  taskId: unknown,
  body: z.infer<typeof updateTaskBody>,
): Promise<ComplianceTaskDoc> {
  const task = await getComplianceTask(p, taskId);
  if (body.status && body.status !== task.status) {
    // Reopening must not make a second open task for the same contract and rule.
    if (
      task.status === 'resolved' &&
      (await ComplianceTask.exists({
        organization_id: task.organization_id,
        contract_id: task.contract_id,
        rule_id: task.rule_id,
        _id: trusted({ $ne: task._id }),
        status: trusted({ $in: OPEN_STATUSES }),
      }))
    )
      throw complianceErrors.compliance_task_exists('An open task for this contract and rule already exists');
    task.resolved_at = body.status === 'resolved' ? new Date() : null;
    task.status = body.status;
  }
  if (body.priority) task.priority = body.priority;
  if (body.due_date) {
    const due = new Date(`${body.due_date}T00:00:00Z`);
    if (Number.isNaN(due.getTime())) throw badRequest('due_date: must be a date (YYYY-MM-DD)');
    task.due_date = due;
  }
  const reopenedOrResolved = task.isModified('status');
  await task.save();
  // Open tasks are counted in the contract's search document.
  if (reopenedOrResolved) await makeContractsSearchable(s, task.organization_id.toHexString(), [task.contract_id.toHexString()]);
  return task;
}
