/**
 * What approvals tell the organization: events through the outbox (webhooks, the activity
 * feed), and a nudge to the request's workflow after a change, best effort (the workflow also
 * reads the stored request whenever it wakes).
 */
import type { Engines } from '../../platform/engines';
import { recordEvent, type Actor } from '../../platform/outbox/record-event';
import { signalWorkflow } from '../../platform/temporal/client';
import type { EventType } from '../../models/event';
import type { ApprovalRecord } from '../../models/approval';
import { approvalChangedSignal, approvalWorkflowId } from '../../workflows/approval.shared';

export const approvalEventData = (a: ApprovalRecord) => ({
  approval_id: a.id,
  contract_id: a.contract_id.toHexString(),
  contract_title: a.contract_title,
  version_number: a.version_number,
  version_sha256: a.version_sha256,
  status: a.status,
});

export function emitApprovalEvent(a: ApprovalRecord, type: EventType, actor: Actor, summary: string, extra: Record<string, unknown> = {}) {
  return recordEvent({
    organizationId: a.organization_id.toHexString(),
    type,
    data: { ...approvalEventData(a), ...extra },
    actor,
    resource: { type: 'approval', id: a.id },
    summary,
  });
}

export async function nudgeApprovalWorkflow(s: Engines, approvalId: string): Promise<void> {
  await signalWorkflow(s, approvalWorkflowId(approvalId), approvalChangedSignal).catch((err: unknown) =>
    s.logger.warn({ err, approvalId }, 'could not signal the approval workflow; it reads the request when it wakes'),
  );
}
