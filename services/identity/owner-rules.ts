/**
 * The owner rules of a team, engine-free so they are tested alone: only an owner grants or
 * takes away `owner`, and an organization always keeps at least one owner.
 */
import { identityErrors } from './errors';
import type { Role } from '../../platform/security/rbac';

/** 403 unless the actor may make a change that touches these roles (a member's present or new one). */
export function assertMayTouchOwner(actor: { role: Role }, ...roles: Role[]): void {
  if (roles.includes('owner') && actor.role !== 'owner')
    throw identityErrors.owner_role_reserved('Only an owner may grant or remove the owner role');
}

/** 409 when a change would leave the organization with `ownersLeft` owners, that is none. */
export function assertKeepsAnOwner(ownersLeft: number): void {
  if (ownersLeft < 1) throw identityErrors.last_owner('The organization must keep at least one owner');
}
