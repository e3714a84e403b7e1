/** The caller's organization. */
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { Organization } from '../../models/organization';

export async function getOrganization(p: Principal) {
  const org = await Organization.findById(p.organizationId);
  if (!org) throw notFound('Organization');
  return org;
}
