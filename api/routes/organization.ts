/** The caller's organization settings (`/settings/organization`). */
import { Router } from 'express';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { Organization } from '../../models/organization';
import { authorize, principalOf } from '../http/middleware/auth';
import { notFound } from '../../platform/errors';
import { operation, registry, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/input';

const updateBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  mfa_required: z.boolean().optional(),
  renewal_reminder_days: z
    .array(z.number().int().min(1).max(365), 'must be a list of days')
    .min(1)
    .max(10)
    .transform((d) => [...new Set(d)].sort((a, b) => b - a))
    .optional(),
});

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
  body: updateBody,
  responses: { 200: one },
});

export function organizationRouter(_s: Services): Router {
  const router = Router();

  router.get('/settings/organization', authorize('team:read'), async (req, res) => {
    const org = await Organization.findById(principalOf(req).organizationId);
    if (!org) throw notFound('Organization');
    res.json(org.toJSON());
  });

  router.put('/settings/organization', authorize('settings:manage'), async (req, res) => {
    const body = updateBody.parse(req.body);
    const org = await Organization.findByIdAndUpdate(principalOf(req).organizationId, { $set: body }, { returnDocument: 'after' });
    if (!org) throw notFound('Organization');
    res.json(org.toJSON());
  });

  return router;
}
