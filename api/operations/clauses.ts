/** The OpenAPI description of the clause library (api/routes/clauses.ts serves it). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { clauseBody } from '../../services/clause-library/clause-positions';
import { operation, registry, timestamp } from '../http/openapi';

const position = z.object({
  text: z.string(),
  variables: z.array(z.record(z.string(), z.unknown())),
  term_value: z.string().nullable(),
  needs_approval: z.boolean(),
  approval_policy_id: idSchema.nullable(),
});
const clause = registry.register(
  'Clause',
  z.object({
    id: idSchema,
    type: z.string(),
    title: z.string(),
    key_term: z.string().nullable(),
    version: z.number().int(),
    preferred: position,
    fallbacks: z.array(position),
    updated_at: timestamp,
  }),
);
const tag = 'Clause library';
operation({
  path: '/clauses',
  method: 'get',
  tag,
  summary: "The organization's clause library, by type",
  responses: { 200: { description: 'The clauses', schema: z.object({ clauses: z.array(clause) }) } },
});
operation({
  path: '/clauses',
  method: 'post',
  tag,
  summary:
    'Store the clause of a type (admins and owners): a preferred position and ordered fallbacks; a type stored again gets its next version',
  description:
    "The preferred position's `term_value` is the organization's standard for the clause's key term (approval policies read it with `terms_differ_from_standard: \"clause_library\"`). A fallback with `needs_approval` names the approval policy a draft choosing it starts.",
  body: clauseBody,
  responses: {
    200: { description: 'The next version of the type', schema: clause },
    201: { description: 'The first version of the type', schema: clause },
  },
});
operation({
  path: '/clauses/{id}',
  method: 'get',
  tag,
  summary: 'Get a clause of the library',
  responses: { 200: { description: 'The clause', schema: clause } },
});
