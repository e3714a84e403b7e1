/**
 * Contracts: CRUD, list with filters and search, AI drafting and AI risk analysis.
 * Bodies are allow-listed by zod (organization, score, author and signing time are never
 * taken from input); every change writes its event to the outbox.
 */
import { Router } from 'express';
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import type { Principal } from '../../platform/security/principal';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { closeContract } from '../../services/contracts/contract-deletion';
import type { EventType } from '../../models/event';
import { pageQuery } from '../../platform/lists/pagination';
import type { ListFilter } from '../../platform/lists/lists';
import { listPage } from '../../platform/lists/list-index';
import { containsText } from '../../platform/text-search';
import { inOrg } from '../../models/base';
import { CONTRACT_STATUSES, CONTRACT_TYPES, Contract, contractEventData, contractList, contractView, type ContractDoc } from '../../models/contract';
import { Vendor } from '../../models/vendor';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { badRequest } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { Document } from '../../models/document';
import { ContractAnalysis } from '../../platform/ai/port';
import { RISK_LEVELS } from '../../platform/ai/risk';
import { operation, pageOf, registry, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/ids';

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const date = z.iso.date('must be a date YYYY-MM-DD').transform((d) => new Date(`${d}T00:00:00Z`));

const editable = {
  title: text(300),
  counterparty: text(300),
  party_name: text(300),
  content: z.string().max(500_000, 'must be at most 500000 characters'),
  vendor_id: idSchema.nullable(),
  document_id: idSchema.nullable(),
  value: z.number('must be a number').min(0, 'must not be negative').nullable(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'),
  start_date: date.nullable(),
  end_date: date.nullable(),
};

const createBody = z.object({
  ...editable,
  type: z.enum(CONTRACT_TYPES, `must be one of ${CONTRACT_TYPES.join(', ')}`),
}).partial().required({ title: true, type: true, counterparty: true });

const updateBody = z.object({
  ...editable,
  type: z.enum(CONTRACT_TYPES, `must be one of ${CONTRACT_TYPES.join(', ')}`),
  status: z.enum(CONTRACT_STATUSES, `must be one of ${CONTRACT_STATUSES.join(', ')}`),
}).partial();

const listQuery = pageQuery.extend({
  status: z.enum(CONTRACT_STATUSES, `must be one of ${CONTRACT_STATUSES.join(', ')}`).optional(),
  type: z.string().regex(/^[a-z_]{1,50}$/, 'must be a contract type such as nda').optional(),
  search: z.string().trim().max(200, 'must be at most 200 characters').optional(),
});

/** The list's filter for a query (the search matches title or counterparty). */
export function contractListFilter(q: Pick<z.infer<typeof listQuery>, 'status' | 'type' | 'search'>): ListFilter {
  return {
    equal: { ...(q.status ? { status: q.status } : {}), ...(q.type ? { type: q.type } : {}) },
    ...(q.search ? { where: { $or: [{ title: containsText(q.search) }, { counterparty: containsText(q.search) }] } } : {}),
  };
}

const draftBody = z.object({
  prompt: z.string().max(4000, 'must be at most 4000 characters').optional(),
  party_name: text(300).optional(),
});

const day = z.iso.date().nullable();

/** contractListItem (models/contract.ts). */
const contractItem = registry.register('ContractListItem', z.object({
  id: idSchema,
  title: z.string(),
  type: z.string(),
  status: z.enum(CONTRACT_STATUSES),
  counterparty: z.string(),
  risk_score: z.number().nullable(),
  vendor_id: idSchema.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
}));

/** contractView (models/contract.ts): the whole record, dates as YYYY-MM-DD. */
export const contractSchema = registry.register('Contract', contractItem.extend({
  organization_id: idSchema,
  party_name: z.string().nullable(),
  content: z.string(),
  document_id: idSchema.nullable().meta({ description: 'The PDF of record (an uploaded PDF of the organization): signature requests freeze its SHA-256 and seal it with the signature and audit pages appended' }),
  value: z.number().nullable(),
  currency: z.string(),
  start_date: day,
  end_date: day,
  signed_at: timestamp.nullable(),
  created_by: idSchema.nullable(),
  analysis: ContractAnalysis.shape.analysis.extend({ risk_level: z.enum(RISK_LEVELS) }).nullable(),
  analyzed_at: timestamp.nullable(),
}));

const tag = 'Contracts';
const one = { description: 'The contract', schema: contractSchema };
operation({ path: '/contracts', method: 'get', tag, summary: 'List contracts (newest first), filtered by status or type, searched in title and counterparty', query: listQuery, responses: { 200: { description: 'A page of contracts', schema: pageOf('contracts', contractItem) } } });
operation({ path: '/contracts', method: 'post', tag, summary: 'Create a draft contract (honours Idempotency-Key)', body: createBody, responses: { 201: one, 409: 'Idempotency-Key reused with a different body, or still in flight' } });
operation({ path: '/contracts/{id}', method: 'get', tag, summary: 'Get a contract', responses: { 200: one } });
operation({ path: '/contracts/{id}', method: 'put', tag, summary: 'Update a contract; a status change is allowed', body: updateBody, responses: { 200: one } });
operation({
  path: '/contracts/{id}', method: 'delete', tag, summary: 'Delete a contract, and close what refers to it',
  description: 'Pending signature requests of the contract are cancelled (their signing links answer 410), its open compliance tasks are resolved, its integration links are forgotten (a connected CRM or storage keeps its last copy) and its chunks leave the chat index shortly after. `contract.deleted` is recorded before the contract is removed; should the service stop in between, the deletion is finished from the event.',
  responses: { 204: 'Deleted' },
});
operation({ path: '/contracts/{id}/draft-ai', method: 'post', tag, summary: 'Draft the contract text with AI', body: draftBody, responses: { 200: one, 503: 'The AI provider is unavailable' } });
operation({ path: '/contracts/{id}/analyze', method: 'post', tag, summary: 'AI risk analysis; stores risk_score and analysis on the contract', responses: { 200: { description: 'The analysis', schema: ContractAnalysis }, 503: 'The AI provider is unavailable' } });

function checkDates(c: { start_date?: Date | null; end_date?: Date | null }) {
  if (c.start_date && c.end_date && c.end_date < c.start_date) throw badRequest('end_date: must not be before start_date');
}

/** A PDF of record must be an uploaded PDF of the same organization. */
async function checkDocument(p: Principal, documentId: string | null | undefined) {
  if (!documentId) return;
  const doc = await findOwned(Document, p, documentId, 'Document', { projection: { mime_type: 1 } });
  if (doc.mime_type !== 'application/pdf') throw badRequest('document_id: the PDF of record must be a PDF document');
}

async function checkVendor(p: Principal, vendorId: string | null | undefined) {
  if (!vendorId) return;
  if (!(await Vendor.exists(inOrg(p.organizationId, vendorId)!))) throw badRequest('vendor_id: no such vendor');
}

export function emitContractEvent(p: Principal, type: EventType, c: ContractDoc, summary: string, extra: Record<string, unknown> = {}) {
  return recordEvent({
    organizationId: p.organizationId,
    type,
    data: { ...contractEventData(c), ...extra },
    actor: actorOf(p),
    resource: { type: 'contract', id: c.id },
    summary,
  });
}

export function contractsRouter(s: Services): Router {
  const router = Router();
  const once = idempotent(s.logger);

  router.get('/', authorize('contracts:read'), async (req, res) => {
    const p = principalOf(req);
    const q = listQuery.parse(req.query);
    const { items, total } = await listPage(s, contractList, p.organizationId, contractListFilter(q), q);
    res.json({ contracts: items, total, page: q.page, page_size: q.page_size });
  });

  router.post('/', authorize('contracts:write'), once, async (req, res) => {
    const p = principalOf(req);
    const body = createBody.parse(req.body);
    checkDates(body);
    await checkVendor(p, body.vendor_id);
    await checkDocument(p, body.document_id);
    const contract = await Contract.create({
      ...body,
      organization_id: new Types.ObjectId(p.organizationId),
      status: 'draft',
      created_by: new Types.ObjectId(p.userId),
    });
    await emitContractEvent(p, 'contract.created', contract, `Contract "${contract.title}" created`);
    res.status(201).json(contractView(contract));
  });

  router.get('/:id', authorize('contracts:read'), async (req, res) => {
    res.json(contractView(await findOwned(Contract, principalOf(req), req.params.id, 'Contract')));
  });

  router.put('/:id', authorize('contracts:write'), async (req, res) => {
    const p = principalOf(req);
    const body = updateBody.parse(req.body);
    const contract = await findOwned(Contract, p, req.params.id, 'Contract');
    await checkVendor(p, body.vendor_id);
    await checkDocument(p, body.document_id);
    contract.set(body);
    checkDates(contract);
    const changed = contract.modifiedPaths();
    await contract.save();
    if (changed.length) await emitContractEvent(p, 'contract.updated', contract, `Contract "${contract.title}" updated`, { changed_fields: changed });
    res.json(contractView(contract));
  });

  router.delete('/:id', authorize('contracts:delete'), async (req, res) => {
    const p = principalOf(req);
    const contract = await findOwned(Contract, p, req.params.id, 'Contract');
    // The event first: should this process stop before the records are closed, the relay
    // finishes the deletion from the event (services/contracts/contract-deletion.ts); never the reverse.
    await emitContractEvent(p, 'contract.deleted', contract, `Contract "${contract.title}" deleted`);
    await closeContract(s, { organizationId: p.organizationId, contractId: contract.id, by: p.name });
    res.status(204).end();
  });

  router.post('/:id/draft-ai', authorize('contracts:write'), async (req, res) => {
    const p = principalOf(req);
    const body = draftBody.parse(req.body ?? {});
    const contract = await findOwned(Contract, p, req.params.id, 'Contract');
    const partyName = body.party_name ?? contract.party_name;
    if (!partyName) throw badRequest('party_name: required, since the contract has none');
    contract.content = await s.ai.draftContract({ type: contract.type, title: contract.title, partyName, counterparty: contract.counterparty, prompt: body.prompt });
    contract.party_name = partyName;
    await contract.save();
    await emitContractEvent(p, 'contract.updated', contract, `Contract "${contract.title}" drafted with AI`, { changed_fields: ['content', 'party_name'] });
    res.json(contractView(contract));
  });

  router.post('/:id/analyze', authorize('contracts:write'), async (req, res) => {
    const p = principalOf(req);
    const contract = await findOwned(Contract, p, req.params.id, 'Contract');
    if (!contract.content.trim()) throw badRequest('content: the contract has no text to analyze; add or draft it first');
    const result = await s.ai.analyzeContract({ type: contract.type, title: contract.title, content: contract.content });
    contract.set({ risk_score: result.risk_score, analysis: result.analysis, analyzed_at: new Date() });
    await contract.save();
    await emitContractEvent(p, 'contract.analyzed', contract, `Contract "${contract.title}" analyzed: risk ${result.risk_score}/100`, {
      risk_score: result.risk_score,
      risk_level: result.analysis.risk_level,
    });
    res.json(result);
  });

  return router;
}
