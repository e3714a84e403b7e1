/** The OpenAPI description of the contract operations (api/routes/contracts.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { ContractAnalysis } from '../../platform/ai/port';
import { RISK_LEVELS } from '../../models/contract';
import { CONTRACT_STATUSES } from '../../models/contract';
import { draftBody } from '../../services/contracts/contract-ai';
import { createContractBody as createBody, updateContractBody as updateBody } from '../../services/contracts/edit-contract';
import { listQuery } from '../../services/contracts/list-contracts';
import { operation, pageOf, registry, timestamp } from '../http/openapi';

const day = z.iso.date().nullable();

/** contractListItem (models/contract.ts). */
const contractItem = registry.register(
  'ContractListItem',
  z.object({
    id: idSchema,
    title: z.string(),
    type: z.string(),
    status: z.enum(CONTRACT_STATUSES),
    counterparty: z.string(),
    risk_score: z.number().nullable(),
    vendor_id: idSchema.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

/** contractView (models/contract.ts): the whole record, dates as YYYY-MM-DD. */
export const contractSchema = registry.register(
  'Contract',
  contractItem.extend({
    organization_id: idSchema,
    party_name: z.string().nullable(),
    content: z.string(),
    document_id: idSchema.nullable().meta({
      description:
        'The PDF of record (an uploaded PDF of the organization): signature requests freeze its SHA-256 and seal it with the signature and audit pages appended',
    }),
    value: z.number().nullable(),
    currency: z.string(),
    start_date: day,
    end_date: day,
    signed_at: timestamp.nullable(),
    created_by: idSchema.nullable(),
    analysis: ContractAnalysis.shape.analysis.extend({ risk_level: z.enum(RISK_LEVELS) }).nullable(),
    analyzed_at: timestamp.nullable(),
  }),
);

const tag = 'Contracts';
const one = { description: 'The contract', schema: contractSchema };
operation({
  path: '/contracts',
  method: 'get',
  tag,
  summary: 'List contracts (newest first), filtered by status or type, searched in title and counterparty',
  query: listQuery,
  responses: { 200: { description: 'A page of contracts', schema: pageOf('contracts', contractItem) } },
});
operation({
  path: '/contracts',
  method: 'post',
  tag,
  summary: 'Create a draft contract (honours Idempotency-Key)',
  body: createBody,
  responses: { 201: one, 409: 'Idempotency-Key reused with a different body, or still in flight' },
});
operation({ path: '/contracts/{id}', method: 'get', tag, summary: 'Get a contract', responses: { 200: one } });
operation({
  path: '/contracts/{id}',
  method: 'put',
  tag,
  summary: 'Update a contract; a status change is allowed',
  description:
    'A change of `content` or `document_id` makes a new version and supersedes the open approval requests of older ones; a change of a fact approval policies read (`type`, `value`, `currency`, `counterparty`, `vendor_id`) supersedes the open and approved requests judged on other facts. While a signature request is pending, either answers 409 `contract_has_pending_signature`.',
  body: updateBody,
  responses: { 200: one, 409: 'contract_has_pending_signature: a signature request is pending; `detail` names it and the fields' },
});
operation({
  path: '/contracts/{id}',
  method: 'delete',
  tag,
  summary: 'Delete a contract, and close what refers to it',
  description:
    'Pending signature requests of the contract are cancelled (their signing links answer 410), its open compliance tasks are resolved, its integration links are forgotten (a connected CRM or storage keeps its last copy) and its chunks leave the chat index shortly after. `contract.deleted` is recorded before the contract is removed; should the service stop in between, the deletion is finished from the event.',
  responses: { 204: 'Deleted' },
});
operation({
  path: '/contracts/{id}/draft-ai',
  method: 'post',
  tag,
  summary: 'Draft the contract text with AI',
  body: draftBody,
  responses: { 200: one, 503: 'The AI provider is unavailable' },
});
operation({
  path: '/contracts/{id}/analyze',
  method: 'post',
  tag,
  summary: 'AI risk analysis; stores risk_score and analysis on the contract',
  responses: { 200: { description: 'The analysis', schema: ContractAnalysis }, 503: 'The AI provider is unavailable' },
});
