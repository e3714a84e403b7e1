/**
 * Deactivating and reactivating a member (SCIM `active`, or the team API). A deactivated member
 * keeps their record but cannot sign in, refresh or use a token (authentication re-reads
 * `active`); the last active owner cannot be deactivated. Their leaving runs on as the
 * deprovisioning workflow; reactivating gives access back only through a new sign-in, as the
 * workflow ended every session.
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { User, type UserDoc } from '../../models/user';
import { changeOwnerSafely } from './owner-lock';
import { forgetUsers } from './auth-user';
import { assertMayTouchOwner } from './owner-rules';
import { startDeprovisioning } from './start-deprovisioning';

export type Via = 'team' | 'scim';

export async function setMemberActive(s: Engines, p: Principal, id: unknown, active: boolean, via: Via): Promise<UserDoc> {
  assertMayTouchOwner(p, (await findOwned(User, p, id, 'Member')).role);
  const apply = async (member: UserDoc) => {
    assertMayTouchOwner(p, member.role);
    if ((member.active !== false) === active) return { member, changed: false };
    member.active = active;
    await member.save();
    await forgetUsers(s, [member._id]);
    return { member, changed: true };
  };
  // Deactivating may take an owner away, so it waits for the owner lock; reactivating does not.
  const { member, changed } = active ? await apply(await findOwned(User, p, id, 'Member')) : await changeOwnerSafely(p, id, apply);
  if (!changed) return member;
  await recordEvent(s, {
    organizationId: p.organizationId,
    type: active ? 'team.member_reactivated' : 'team.member_deactivated',
    data: { id: member.id, email: member.email, full_name: member.full_name, via },
    actor: actorOf(p),
    resource: { type: 'user', id: member.id },
    summary: `${p.name} ${active ? 'reactivated' : 'deactivated'} ${member.full_name}`,
  });
  if (!active) await startDeprovisioning(s, p, member, 'deactivated');
  return member;
}
