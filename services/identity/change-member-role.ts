/** Changing a member's role: only an owner grants or takes away `owner`, and the last owner stays owner. */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { ROLES } from '../../platform/security/rbac';
import { findOwned } from '../../platform/find-owned';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { User, type UserDoc } from '../../models/user';
import { changeOwnerSafely } from './owner-lock';
import { assertMayTouchOwner } from './owner-rules';

export const roleBody = z.object({ role: z.enum(ROLES) });

/** Takes effect at once: authentication re-reads the member's role. */
export async function changeMemberRole(s: Engines, p: Principal, id: unknown, body: z.infer<typeof roleBody>): Promise<UserDoc> {
  const target = await findOwned(User, p, id, 'Member');
  assertMayTouchOwner(p, target.role, body.role);
  const apply = async (member: UserDoc) => {
    assertMayTouchOwner(p, member.role, body.role);
    const previous = member.role;
    if (previous === body.role) return member;
    member.role = body.role;
    await member.save();
    await recordEvent({
      organizationId: p.organizationId,
      type: 'team.role_changed',
      data: { id: member.id, email: member.email, full_name: member.full_name, role: body.role, previous_role: previous },
      actor: actorOf(p),
      resource: { type: 'user', id: member.id },
      summary: `${p.name} changed the role of ${member.full_name} from ${previous} to ${body.role}`,
    });
    return member;
  };
  // Granting owner takes no owner away; any other role may, so it waits for the owner lock.
  return body.role === 'owner' ? apply(target) : changeOwnerSafely(p, id, apply);
}
