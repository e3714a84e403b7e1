/** Changes that may take an owner away (a demotion or a removal), one at a time per organization. */
import { trusted } from 'mongoose';
import type { Principal } from '../../platform/security/principal';
import { exclusively } from '../../platform/claims';
import { findOwned } from '../../platform/find-owned';
import { orgFilter } from '../../models/base';
import { User, type UserDoc } from '../../models/user';
import { assertKeepsAnOwner } from './owner-rules';

/**
 * Runs the change on the member as read under the organization's owner claim
 * (platform/claims.ts), after checking that another owner remains. The count and the write
 * must not interleave with another such change (two owners demoting each other would both see
 * two owners), and the store cannot make them one atomic step: FerretDB 1.24 applies a
 * conditional update as a read and a separate write, so two conditional demotions both pass.
 */
export async function changeOwnerSafely<T>(p: Principal, id: unknown, change: (target: UserDoc) => Promise<T>): Promise<T> {
  return exclusively('team-owners', p.organizationId, async () => {
    const target = await findOwned(User, p, id, 'Member');
    // Only an active owner counts: a deactivated one can neither sign in nor hand the role on.
    const active = { active: trusted({ $ne: false }) };
    if (target.role === 'owner' && target.active !== false)
      assertKeepsAnOwner((await User.countDocuments({ ...orgFilter(p.organizationId), role: 'owner', ...active })) - 1);
    return change(target);
  });
}
