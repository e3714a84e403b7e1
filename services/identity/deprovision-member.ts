/**
 * The steps of a member's leaving (workflows/member-deprovision.ts), each idempotent: run
 * twice, it changes nothing more. A step skips a member who was reactivated meanwhile.
 */
import { trusted, Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { recordEvent } from '../../platform/outbox/record-event';
import { orgFilter } from '../../models/base';
import { ApiKey } from '../../models/api-key';
import { Event } from '../../models/event';
import { Organization } from '../../models/organization';
import { RefreshToken } from '../../models/refresh-token';
import { User } from '../../models/user';
import type { DeprovisionStep } from '../../workflows/member-deprovision.shared';
import { dropRecoveryCodes } from './mfa';
import { forgetUsers } from './auth-user';
import { revokeRefreshTokens } from './session';

/** The member as they are now: null when removed; `returned` when they came back meanwhile. */
async function leaver(step: DeprovisionStep) {
  const user = await User.findOne({ _id: step.input.userId, organization_id: step.input.organizationId });
  return { user, returned: !!user && user.active !== false };
}

/**
 * Ends every session: refresh tokens are revoked, and the session epoch moves on, so access
 * tokens still alive stop at once (authentication compares it) and stay stopped after a
 * reactivation: the member must sign in again.
 */
export async function endMemberSessions(s: Engines, step: DeprovisionStep): Promise<number> {
  const { user, returned } = await leaver(step);
  if (returned) return 0;
  const userId = new Types.ObjectId(step.input.userId);
  const open = await RefreshToken.countDocuments({ user_id: userId, revoked_at: null });
  await revokeRefreshTokens({ user_id: userId });
  if (user) await User.updateOne({ _id: user._id, session_epoch: user.session_epoch }, { $inc: { session_epoch: 1 } });
  else await dropRecoveryCodes(userId);
  await forgetUsers(s, [userId]);
  return open;
}

/** Revokes the keys the member made, or hands them to the longest-standing active owner, as the organization chose. */
export async function settleMemberApiKeys(step: DeprovisionStep): Promise<{ policy: 'revoke' | 'transfer'; count: number }> {
  const org = await Organization.findById(step.input.organizationId, { leaver_api_keys: 1 }).lean();
  const policy = org?.leaver_api_keys ?? 'revoke';
  const { returned } = await leaver(step);
  if (returned) return { policy, count: 0 };
  const theirs = { ...orgFilter(step.input.organizationId), created_by: new Types.ObjectId(step.input.userId) };
  const heir =
    policy === 'transfer'
      ? await User.findOne(
          {
            ...orgFilter(step.input.organizationId),
            role: 'owner',
            active: trusted({ $ne: false }),
            _id: trusted({ $ne: new Types.ObjectId(step.input.userId) }),
          },
          { _id: 1 },
        )
          .sort({ joined_at: 1 })
          .lean()
      : null;
  // With no owner to take them, keys are revoked: a key never outlives every person behind it.
  const result = heir ? await ApiKey.updateMany(theirs, { $set: { created_by: heir._id } }) : await ApiKey.deleteMany(theirs);
  return { policy: heir ? 'transfer' : 'revoke', count: 'modifiedCount' in result ? result.modifiedCount : result.deletedCount };
}

export interface DeprovisionOutcome extends DeprovisionStep {
  sessions: number;
  apiKeys: { policy: 'revoke' | 'transfer'; count: number };
  /** Pending approval decisions marked `removed` (services/approvals/remove-leaver.ts). */
  approvals: number;
}

/** `team.member_deprovisioned` to webhooks and the feed, once per run. */
export async function announceMemberDeprovisioned(s: Engines, o: DeprovisionOutcome): Promise<void> {
  const { input } = o;
  const recorded = await Event.exists({ ...orgFilter(input.organizationId), type: 'team.member_deprovisioned', 'data.run_id': o.runId });
  if (recorded) return;
  await recordEvent(s, {
    organizationId: input.organizationId,
    type: 'team.member_deprovisioned',
    data: {
      id: input.userId,
      email: input.email,
      full_name: input.fullName,
      reason: input.reason,
      sessions_ended: o.sessions,
      api_keys: o.apiKeys,
      approvals_removed: o.approvals,
      run_id: o.runId,
    },
    actor: input.actor,
    resource: { type: 'user', id: input.userId },
    summary: `${input.fullName} left: sessions ended, API keys ${o.apiKeys.policy === 'transfer' ? 'handed to an owner' : 'revoked'}`,
  });
}
