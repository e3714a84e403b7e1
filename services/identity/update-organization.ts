/** Changing the organization's settings; a change of the MFA rule goes to the activity feed (and webhooks). */
import { z } from 'zod';
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { actorOf, recordEvent, type EventRecorder } from '../../platform/outbox/record-event';
import { Organization } from '../../models/organization';

export const organizationBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  mfa_required: z.boolean().optional(),
  leaver_api_keys: z.enum(['revoke', 'transfer']).optional(),
  renewal_reminder_days: z
    .array(z.number().int().min(1).max(365), 'must be a list of days')
    .min(1)
    .max(10)
    .transform((d) => [...new Set(d)].sort((a, b) => b - a))
    .optional(),
});

export async function updateOrganization(s: EventRecorder, p: Principal, body: z.infer<typeof organizationBody>) {
  const before = await Organization.findByIdAndUpdate(p.organizationId, { $set: body }, { returnDocument: 'before' });
  const org = before && (await Organization.findById(p.organizationId));
  if (!before || !org) throw notFound('Organization');
  // Turning the rule off weakens every member's login: the feed must show who did it.
  if (body.mfa_required !== undefined && body.mfa_required !== before.mfa_required)
    await recordEvent(s, {
      organizationId: p.organizationId,
      type: 'team.mfa_required_changed',
      data: { id: p.organizationId, mfa_required: body.mfa_required },
      actor: actorOf(p),
      resource: { type: 'organization', id: p.organizationId },
      summary: `${p.name} ${body.mfa_required ? 'required' : 'stopped requiring'} MFA for every member`,
    });
  return org;
}
