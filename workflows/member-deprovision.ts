/**
 * A member leaves (deactivated or removed, services/identity/start-deprovisioning.ts): every
 * session ends, their API keys are revoked or handed to an owner, their pending approval
 * decisions are marked removed (each affected step moves on), and webhooks and the feed
 * hear `team.member_deprovisioned`. Each step is an idempotent activity, retried until it holds.
 */
import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
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
  // Runs begun before this step existed replay without it.
  const approvals = patched('leaver-approvals') ? await steps.settleMemberApprovals(step) : 0;
  await steps.announceMemberDeprovisioned({ ...step, sessions, apiKeys, approvals });
}
