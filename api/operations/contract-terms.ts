/** The OpenAPI description of a contract's key terms and the renewals (api/routes/contract-terms.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { KEY_TERMS, keyTermSchema } from '../../services/contracts/key-terms.shared';
import { updateTermsBody } from '../../services/contracts/edit-contract-terms';
import { operation, registry, timestamp } from '../http/openapi';

const termsSchema = registry.register('KeyTerms', z.object(Object.fromEntries(KEY_TERMS.map((k) => [k, keyTermSchema(k).nullable()]))));
const termsView = registry.register(
  'ContractKeyTerms',
  z.object({
    contract_id: idSchema,
    extracted_at: timestamp.nullable(),
    terms: termsSchema,
    partial: z
      .boolean()
      .meta({ description: 'The last extraction did not read every key (unread_keys) or not the whole text (text_truncated)' }),
    unread_keys: z.array(z.enum(KEY_TERMS)).meta({
      description:
        'Keys the last extraction did not get to within its time budget (KEY_TERMS_BUDGET_MS); each keeps the term it had, or null. Extract again to retry them.',
    }),
    text_truncated: z.boolean().meta({
      description:
        'The text of record is longer than the rules read (KEY_TERMS_MAX_TEXT_CHARS characters, pages in order); terms stated after that are not found',
    }),
    opt_out_deadline: z.iso.date().nullable().meta({
      description:
        'For a contract that renews automatically: its end date minus the non-renewal notice, the last day to opt out, which the renewal reminders count down to',
    }),
    null_reasons: z.partialRecord(z.enum([...KEY_TERMS, 'opt_out_deadline']), z.string()).meta({
      description:
        'Why a key (or opt_out_deadline) is null though the text speaks of it, e.g. end_date: the term has no fixed end, or runs from a start the text does not date. Never a guessed value.',
    }),
  }),
);

export const renewalsQuery = z.object({
  within_days: z.coerce
    .number('must be a number')
    .int('must be an integer')
    .min(0, 'must not be negative')
    .max(3650, 'must be at most 3650')
    .default(90),
});

const renewalSchema = z.object({
  contract_id: idSchema,
  title: z.string(),
  counterparty: z.string(),
  end_date: z.iso.date().nullable(),
  non_renewal_notice_days: z.number().nullable(),
  opt_out_deadline: z.iso.date(),
  days_left: z.number().int(),
});

const tag = 'Contracts';
const one = { description: "The contract's key terms: each of the twelve keys holds a term or null", schema: termsView };
operation({
  path: '/contracts/renewals',
  method: 'get',
  tag,
  summary:
    'Auto-renewing contracts whose opt-out deadline (end date minus the non-renewal notice) falls within the next within_days days (default 90), soonest first',
  query: renewalsQuery,
  responses: { 200: { description: 'The renewals', schema: z.object({ renewals: z.array(renewalSchema), total: z.number().int() }) } },
});
operation({
  path: '/contracts/{id}/extract',
  method: 'post',
  tag,
  summary:
    "Extract the key terms from the contract's text of record (its attached contract document, else its content); confirmed terms are kept",
  responses: { 200: one },
});
operation({ path: '/contracts/{id}/terms', method: 'get', tag, summary: "The contract's key terms", responses: { 200: one } });
operation({
  path: '/contracts/{id}/terms',
  method: 'put',
  tag,
  summary:
    'Confirm or correct key terms: a given term is confirmed unless `confirmed: false`, null clears it; a confirmed term is never overwritten by extraction',
  description:
    'What the text reads is kept beside a correction, and an approval policy applies when it matches either. A correction that changes a term supersedes the approval requests judged on the terms before it; while a signature request is pending it answers 409 `contract_has_pending_signature`.',
  body: updateTermsBody,
  responses: { 200: one, 409: 'contract_has_pending_signature: a signature request is pending' },
});
