/**
 * A member leaves (deactivated or removed, services/identity/start-deprovisioning.ts): every
 * session ends, their API keys are revoked or handed to an owner, their pending approval
 * decisions are marked removed (each affected step moves on), and webhooks and the feed
 * hear `team.member_deprovisioned`. Each step is an idempotent activity, retried until it holds.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { IdentityActivities } from '../activities/identity';
import type { MemberDeprovision } from './member-deprovision.shared';

const steps = proxyActivities<IdentityActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function memberDeprovisionWorkflow(input: MemberDeprovision): Promise<void> {
  const step = { input, runId: workflowInfo().runId };
  const sessions = await steps.endMemberSessions(step);
  const apiKeys = await steps.settleMemberApiKeys(step);
  const approvals = await steps.settleMemberApprovals(step);
  await steps.announceMemberDeprovisioned({ ...step, sessions, apiKeys, approvals });
}
