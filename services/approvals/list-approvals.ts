/** The organization's approval requests (one by id, or a page), and an approver's inbox (`assigned_to=me`: the steps waiting for the caller). */
import { z } from 'zod';
import { Types } from 'mongoose';
import type { Principal } from '../../platform/security/principal';
import { choice, idSchema } from '../../platform/input';
import { findOwned } from '../../platform/find-owned';
import { orgFilter } from '../../models/base';
import { APPROVAL_STATUSES, Approval, type ApprovalRecord } from '../../models/approval';
import { requirementsFor, userOf } from './approval-view';

export const approvalListQuery = z.object({
  assigned_to: z.literal('me', 'must be me').optional(),
  status: choice(APPROVAL_STATUSES).optional(),
  contract_id: idSchema.optional(),
  page: z.coerce.number('must be a whole number').int('must be a whole number').min(1, 'must be at least 1').default(1),
  page_size: z.coerce
    .number('must be a whole number')
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .default(20)
    .transform((n) => Math.min(n, 100)),
});
export type ApprovalListQuery = z.infer<typeof approvalListQuery>;

/** Whether the caller may decide on the request's active step now. */
const waitsFor = (p: Principal, a: ApprovalRecord) => {
  const g = a.groups.find((x) => x.status === 'active');
  return !!g && requirementsFor(a, g, userOf(p)).length > 0 && !g.decisions.some((d) => d.user_id.toHexString() === p.userId);
};

export const getApproval = (p: Principal, id: unknown): Promise<ApprovalRecord> => findOwned(Approval, p, id, 'Approval');

export async function listApprovals(p: Principal, q: ApprovalListQuery): Promise<{ items: ApprovalRecord[]; total: number }> {
  const filter = {
    ...orgFilter(p.organizationId),
    ...(q.assigned_to ? { status: 'pending' as const } : q.status ? { status: q.status } : {}),
    ...(q.contract_id ? { contract_id: new Types.ObjectId(q.contract_id) } : {}),
  };
  const skip = (q.page - 1) * q.page_size;
  if (!q.assigned_to) {
    const [items, total] = await Promise.all([
      Approval.find(filter).sort({ created_at: -1, _id: -1 }).skip(skip).limit(q.page_size),
      Approval.countDocuments(filter),
    ]);
    return { items, total };
  }
  // Who may act depends on roles and escalation: the open requests are few, so they are filtered here.
  const open = (await Approval.find(filter).sort({ created_at: -1, _id: -1 })).filter((a) => waitsFor(p, a));
  return { items: open.slice(skip, skip + q.page_size), total: open.length };
}
