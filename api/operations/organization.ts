/** The OpenAPI description of the organization settings (api/routes/organization.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { organizationBody } from '../../services/identity/update-organization';
import { operation, registry, timestamp } from '../http/openapi';

const organizationSchema = registry.register(
  'Organization',
  z.object({
    id: idSchema,
    name: z.string(),
    mfa_required: z.boolean(),
    renewal_reminder_days: z
      .array(z.number().int())
      .meta({ description: "Days before an opt-out deadline the contract's owner is reminded" }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

const tag = 'Organization';
const one = { description: 'The organization', schema: organizationSchema };
operation({ path: '/settings/organization', method: 'get', tag, summary: "The caller's organization", responses: { 200: one } });
operation({
  path: '/settings/organization',
  method: 'put',
  tag,
  summary: 'Rename the organization, require MFA for every member, or set the renewal reminder days',
  description: 'Changing `mfa_required` is recorded as `team.mfa_required_changed` (activity feed and webhooks).',
  body: organizationBody,
  responses: { 200: one },
});
