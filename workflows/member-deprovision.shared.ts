/** What starters of the member deprovisioning workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface MemberDeprovision {
  organizationId: string;
  userId: string;
  email: string;
  fullName: string;
  reason: 'deactivated' | 'removed';
  /** Who made the member leave, for the event. */
  actor: { type: 'user' | 'api_key'; id: string; name: string };
}

export interface DeprovisionStep {
  input: MemberDeprovision;
  /** The run, so a retried step that already recorded its event does not record it twice. */
  runId: string;
}

export const memberDeprovision = workflowRef<[MemberDeprovision]>('memberDeprovisionWorkflow', 'member-deprovision');
export const memberDeprovisionWorkflowId = (userId: string) => `member-deprovision-${userId}`;
