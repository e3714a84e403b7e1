/** The OpenAPI description of the vendor operations (api/routes/vendors.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { VendorAssessment } from '../../platform/ai/port';
import { RISK_LEVELS } from '../../models/contract';
import { VENDOR_STATUSES } from '../../models/vendor';
import { createVendorBody as createBody, updateVendorBody as updateBody } from '../../services/vendors/edit-vendor';
import { ndaBody } from '../../services/vendors/generate-nda';
import { listQuery } from '../../services/vendors/list-vendors';
import { operation, pageOf, registry, timestamp } from '../http/openapi';
import { contractSchema } from './contracts';

/** vendorListItem (models/vendor.ts). */
const vendorItem = registry.register(
  'VendorListItem',
  z.object({
    id: idSchema,
    name: z.string(),
    contact_email: z.email().nullable(),
    status: z.enum(VENDOR_STATUSES),
    risk_level: z.enum(RISK_LEVELS).nullable(),
    risk_score: z.number().nullable(),
    category: z.string().nullable(),
    created_at: timestamp,
  }),
);

/** The whole vendor record (its toJSON). */
const vendorSchema = registry.register(
  'Vendor',
  vendorItem.extend({
    organization_id: idSchema,
    contact_name: z.string().nullable(),
    contact_phone: z.string().nullable(),
    website: z.string().nullable(),
    notes: z.string().nullable(),
    assessment: VendorAssessment.shape.assessment.nullable(),
    assessed_at: timestamp.nullable(),
    created_by: idSchema.nullable(),
    updated_at: timestamp,
  }),
);

const tag = 'Vendors';
const one = { description: 'The vendor', schema: vendorSchema };
operation({
  path: '/vendors',
  method: 'get',
  tag,
  summary: 'List vendors (newest first), filtered by status or risk level, searched in name and category',
  query: listQuery,
  responses: { 200: { description: 'A page of vendors', schema: pageOf('vendors', vendorItem) } },
});
operation({
  path: '/vendors',
  method: 'post',
  tag,
  summary: 'Add a vendor (honours Idempotency-Key)',
  body: createBody,
  responses: { 201: one, 409: 'Idempotency-Key reused with a different body, or still in flight' },
});
operation({ path: '/vendors/{id}', method: 'get', tag, summary: 'Get a vendor', responses: { 200: one } });
operation({ path: '/vendors/{id}', method: 'put', tag, summary: 'Update a vendor', body: updateBody, responses: { 200: one } });
operation({
  path: '/vendors/{id}',
  method: 'delete',
  tag,
  summary: 'Delete a vendor; its contracts stay, unlinked',
  responses: { 204: 'Deleted' },
});
operation({
  path: '/vendors/{id}/risk-assessment',
  method: 'post',
  tag,
  summary: 'AI risk assessment; stores risk_score and risk_level on the vendor',
  responses: { 200: { description: 'The assessment', schema: VendorAssessment }, 503: 'The AI provider is unavailable' },
});
operation({
  path: '/vendors/{id}/generate-nda',
  method: 'post',
  tag,
  summary: 'Generate a draft NDA contract linked to the vendor (honours Idempotency-Key)',
  body: ndaBody,
  responses: { 201: { description: 'The new NDA contract', schema: contractSchema }, 503: 'The AI provider is unavailable' },
});
