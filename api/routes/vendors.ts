/**
 * Vendors: CRUD, list by status and risk level, AI risk assessment (the score and level
 * are stored on the vendor) and NDA generation (a new nda contract linked to the vendor).
 */
import { Router } from 'express';
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { listPage } from '../../platform/lists/list-index';
import { containsText } from '../../platform/text-search';
import { RISK_LEVELS } from '../../platform/ai/risk';
import { orgFilter } from '../../models/base';
import { VENDOR_STATUSES, Vendor, vendorList, type VendorDoc } from '../../models/vendor';
import { Contract, contractView } from '../../models/contract';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { emitContractEvent } from '../../services/contracts/contract-events';
import { findOwned } from '../../platform/find-owned';
import { VendorAssessment } from '../../platform/ai/port';
import { operation, pageOf, registry, timestamp } from '../http/openapi';
import { idSchema, requiredText } from '../../platform/input';
import { contractSchema } from '../operations/contracts';

const optionalText = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).nullable();

const fields = {
  name: requiredText(300),
  contact_name: optionalText(300),
  contact_email: z.email('must be an email address').max(254).nullable(),
  contact_phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ().-]{5,30}$/, 'must be a phone number of digits, spaces, ( ) . - and an optional leading +')
    .refine((v) => v.replace(/\D/g, '').length >= 5, 'must have at least 5 digits')
    .nullable(),
  category: optionalText(100),
  website: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2048)
    .nullable(),
  notes: optionalText(10_000),
  status: z.enum(VENDOR_STATUSES, `must be one of ${VENDOR_STATUSES.join(', ')}`),
};

const createBody = z.object(fields).partial().required({ name: true });
const updateBody = z.object(fields).partial();

const listQuery = pageQuery.extend({
  status: z.enum(VENDOR_STATUSES, `must be one of ${VENDOR_STATUSES.join(', ')}`).optional(),
  risk_level: z.enum(RISK_LEVELS, `must be one of ${RISK_LEVELS.join(', ')}`).optional(),
  search: z.string().trim().max(200, 'must be at most 200 characters').optional(),
});

/** The list's filter for a query (the search matches name or category). */
export function vendorListFilter(q: Pick<z.infer<typeof listQuery>, 'status' | 'risk_level' | 'search'>): ListFilter {
  return {
    equal: { ...(q.status ? { status: q.status } : {}), ...(q.risk_level ? { risk_level: q.risk_level } : {}) },
    ...(q.search ? { where: { $or: [{ name: containsText(q.search) }, { category: containsText(q.search) }] } } : {}),
  };
}

const ndaBody = z.object({
  party_name: requiredText(300),
  duration_years: z
    .number('must be a number')
    .int('must be a whole number of years')
    .min(1, 'must be at least 1')
    .max(20, 'must be at most 20')
    .default(2),
});

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

const vendorEventData = (v: VendorDoc) => ({
  id: v.id,
  name: v.name,
  category: v.category ?? null,
  status: v.status,
  risk_level: v.risk_level ?? null,
  risk_score: v.risk_score ?? null,
});

export function vendorsRouter(s: Services): Router {
  const router = Router();
  const once = idempotent(s.logger);

  router.get('/', authorize('vendors:read'), async (req, res) => {
    const p = principalOf(req);
    const q = listQuery.parse(req.query);
    const { items, total } = await listPage(s, vendorList, p.organizationId, vendorListFilter(q), q);
    res.json({ vendors: items, total, page: q.page, page_size: q.page_size });
  });

  router.post('/', authorize('vendors:write'), once, async (req, res) => {
    const p = principalOf(req);
    const body = createBody.parse(req.body);
    const vendor = await Vendor.create({
      ...body,
      organization_id: new Types.ObjectId(p.organizationId),
      created_by: new Types.ObjectId(p.userId),
    });
    await recordEvent({
      organizationId: p.organizationId,
      type: 'vendor.created',
      data: vendorEventData(vendor),
      actor: actorOf(p),
      resource: { type: 'vendor', id: vendor.id },
      summary: `Vendor "${vendor.name}" added`,
    });
    res.status(201).json(vendor.toJSON());
  });

  router.get('/:id', authorize('vendors:read'), async (req, res) => {
    res.json((await findOwned(Vendor, principalOf(req), req.params.id, 'Vendor')).toJSON());
  });

  router.put('/:id', authorize('vendors:write'), async (req, res) => {
    const body = updateBody.parse(req.body);
    const vendor = await findOwned(Vendor, principalOf(req), req.params.id, 'Vendor');
    vendor.set(body);
    await vendor.save();
    res.json(vendor.toJSON());
  });

  router.delete('/:id', authorize('vendors:delete'), async (req, res) => {
    const p = principalOf(req);
    const vendor = await findOwned(Vendor, p, req.params.id, 'Vendor');
    await vendor.deleteOne();
    // Contracts outlive their vendor; the dangling link is cleared.
    await Contract.updateMany({ ...orgFilter(p.organizationId), vendor_id: vendor._id }, { $set: { vendor_id: null } });
    res.status(204).end();
  });

  router.post('/:id/risk-assessment', authorize('vendors:write'), async (req, res) => {
    const p = principalOf(req);
    const vendor = await findOwned(Vendor, p, req.params.id, 'Vendor');
    const contracts = await Contract.find({ ...orgFilter(p.organizationId), vendor_id: vendor._id })
      .sort({ created_at: -1 })
      .limit(20);
    const result = await s.ai.assessVendor({
      name: vendor.name,
      category: vendor.category,
      website: vendor.website,
      notes: vendor.notes,
      contracts: contracts.map((c) => ({ title: c.title, type: c.type, status: c.status, content: c.content })),
    });
    vendor.set({ risk_score: result.risk_score, risk_level: result.risk_level, assessment: result.assessment, assessed_at: new Date() });
    await vendor.save();
    await recordEvent({
      organizationId: p.organizationId,
      type: 'vendor.risk_assessed',
      data: vendorEventData(vendor),
      actor: actorOf(p),
      resource: { type: 'vendor', id: vendor.id },
      summary: `Vendor "${vendor.name}" assessed: risk ${result.risk_score}/100 (${result.risk_level})`,
    });
    res.json(result);
  });

  router.post('/:id/generate-nda', authorize('contracts:write'), once, async (req, res) => {
    const p = principalOf(req);
    const body = ndaBody.parse(req.body ?? {});
    const vendor = await findOwned(Vendor, p, req.params.id, 'Vendor');
    const term = `${body.duration_years} year${body.duration_years === 1 ? '' : 's'}`;
    const title = `Mutual NDA with ${vendor.name}`;
    const content = await s.ai.draftContract({ type: 'nda', title, partyName: body.party_name, counterparty: vendor.name, term });
    const contract = await Contract.create({
      organization_id: new Types.ObjectId(p.organizationId),
      title,
      type: 'nda',
      status: 'draft',
      counterparty: vendor.name,
      party_name: body.party_name,
      content,
      vendor_id: vendor._id,
      created_by: new Types.ObjectId(p.userId),
    });
    await emitContractEvent(p, 'contract.created', contract, `NDA "${title}" generated for vendor "${vendor.name}"`, {
      vendor_id: vendor.id,
    });
    res.status(201).json(contractView(contract));
  });

  return router;
}
