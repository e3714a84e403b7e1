/** The signed-in user's own record: MFA belongs to a person, not an API key. */
import type { Principal } from '../../platform/security/principal';
import { badRequest, unauthorized } from '../../platform/errors';
import { User, type UserDoc } from '../../models/user';

export async function signedInUser(p: Principal): Promise<UserDoc> {
  if (p.kind !== 'user') throw badRequest('MFA is enrolled by a signed-in user, not an API key');
  const user = await User.findOne({ _id: p.userId, organization_id: p.organizationId });
  if (!user) throw unauthorized();
  return user;
}
