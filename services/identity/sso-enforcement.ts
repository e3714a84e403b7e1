/** Where SSO is enforced, a password signs in only an owner with MFA (the break-glass account). */
import { SsoSettings } from '../../models/sso-settings';
import type { UserDoc } from '../../models/user';
import { identityErrors } from './errors';

export async function refuseWhenSsoEnforced(user: UserDoc): Promise<void> {
  const settings = await SsoSettings.findOne(
    { organization_id: user.organization_id, enabled: true, enforce_sso: true },
    { allowed_domains: 1, slug: 1 },
  ).lean();
  if (!settings) return;
  const domain = user.email.slice(user.email.lastIndexOf('@') + 1);
  if (!settings.allowed_domains.includes(domain)) return;
  if (user.role === 'owner' && user.mfa_enabled) return;
  throw identityErrors.sso_required(
    user.role === 'owner'
      ? 'Your organization signs in with SSO; an owner keeps a password only with MFA enabled'
      : `Your organization signs in with SSO: use /api/v1/auth/sso/${settings.slug}/start`,
  );
}
