/** The team as its members see it: members by joining date, and invitations still open. */
import { trusted } from 'mongoose';
import type { Principal } from '../../platform/security/principal';
import { orgFilter } from '../../models/base';
import { Invite } from '../../models/invite';
import { User } from '../../models/user';

export const listMembers = (p: Principal) => User.find(orgFilter(p.organizationId)).sort({ joined_at: 1 });

/** Pending and not expired, newest first. */
export const listPendingInvites = (p: Principal) =>
  Invite.find({ ...orgFilter(p.organizationId), status: 'pending', expires_at: trusted({ $gt: new Date() }) }).sort({ created_at: -1 });
