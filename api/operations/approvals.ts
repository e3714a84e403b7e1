/** The OpenAPI description of approval policies and approvals (api/routes/approval-policies.ts, approvals.ts). */
import { z } from 'zod';
import { idSchema, requiredText } from '../../platform/input';
import { ROLES } from '../../platform/security/rbac';
import { APPROVAL_STATUSES, GROUP_STATUSES } from '../../models/approval';
import { approversSchema, conditionsSchema, policyBody } from '../../services/approvals/policy-rules';
import { approvalListQuery } from '../../services/approvals/list-approvals';
import { operation, pageOf, registry, timestamp } from '../http/openapi';

export const decisionBody = z.object({
  comment: z.string().trim().max(2000, 'must be at most 2000 characters').optional(),
  version_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex')
    .optional()
    .meta({ description: 'The version the approver reviewed; a different one than the request is bound to answers 409' }),
});
export const overrideBody = z.object({ reason: requiredText(2000) });

const policySchema = registry.register(
  'ApprovalPolicy',
  z.object({
    id: idSchema,
    name: z.string(),
    step: z.number().int().meta({ description: 'Policies of one step approve in parallel; steps follow each other, lowest first' }),
    conditions: conditionsSchema,
    approvers: approversSchema,
    reminder_days: z.number().int(),
    escalation_days: z.number().int().nullable(),
    escalate_to_role: z.enum(['admin', 'owner']),
    active: z.boolean(),
    allow_self_approval: z.boolean().meta({
      description:
        'Whether the requester of an approval, or the author of the version under review, may count as an approver (default false)',
    }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

const termFact = z.object({ value: z.string(), normalized: z.unknown() }).nullable();
const factsSchema = registry.register(
  'ApprovalFacts',
  z
    .object({
      type: z.string(),
      value: z.number().nullable(),
      currency: z.string(),
      counterparty: z.string(),
      vendor: z.object({ id: idSchema, name: z.string(), risk: z.string().nullable() }).nullable(),
      terms: z.record(z.string(), termFact).meta({ description: 'The key terms as the organization holds them, corrections included' }),
      text_reads: z.record(z.string(), termFact).meta({
        description: "For each key a member's correction changed: what the version's text reads (a policy matching either applies)",
      }),
    })
    .meta({
      description:
        'Every fact the policies read when the request started. The request covers these facts only: a change to any supersedes it, and the gate compares them at send time.',
    }),
);

const approvalSchema = registry.register(
  'Approval',
  z.object({
    id: idSchema,
    contract_id: idSchema,
    contract_title: z.string(),
    version_number: z.number().int(),
    version_sha256: z.string().meta({ description: 'The version this request approves; an edit supersedes it' }),
    version_author_id: idSchema
      .nullable()
      .meta({ description: 'Who wrote that version: not an approver unless a policy allows self-approval' }),
    facts: factsSchema.nullable(),
    facts_sha256: z.string().nullable(),
    status: z.enum(APPROVAL_STATUSES),
    groups: z.array(
      z.object({
        step: z.number().int(),
        status: z.enum(GROUP_STATUSES),
        activated_at: timestamp.nullable(),
        completed_at: timestamp.nullable(),
        escalated_at: timestamp.nullable(),
        requirements: z.array(
          z.object({
            policy_id: idSchema,
            policy_name: z.string(),
            approvers: approversSchema,
            required: z.number().int(),
            approved: z.number().int(),
            reasons: z.array(z.string()),
            reminder_days: z.number().int(),
            escalation_days: z.number().int().nullable(),
            escalate_to_role: z.enum(ROLES),
            allow_self_approval: z.boolean(),
          }),
        ),
        decisions: z.array(
          z.object({
            user_id: idSchema,
            name: z.string(),
            decision: z.enum(['approved', 'rejected', 'removed']),
            comment: z.string().nullable(),
            at: timestamp,
          }),
        ),
      }),
    ),
    requested_by: idSchema.nullable(),
    requested_by_name: z.string().nullable(),
    override: z
      .object({
        user_id: idSchema.nullable(),
        name: z.string().nullable(),
        reason: z.string(),
        at: timestamp.nullable(),
        missing: z.array(z.string()),
      })
      .nullable(),
    completed_at: timestamp.nullable(),
    workflow_id: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

const tag = 'Approvals';
const policy = { description: 'The policy', schema: policySchema };
const approval = { description: 'The request', schema: approvalSchema };
const conflicts =
  "approval_out_of_order (the step is not active yet), approval_stale_version (version_sha256 is not the request's), approval_already_decided, approval_superseded (the contract changed), approval_closed";
operation({
  path: '/settings/approval-policies',
  method: 'get',
  tag,
  summary: "The organization's approval policies",
  responses: { 200: { description: 'The policies', schema: z.object({ policies: z.array(policySchema), total: z.number().int() }) } },
});
operation({
  path: '/settings/approval-policies',
  method: 'post',
  tag,
  summary: 'Add an approval policy (admins and owners)',
  description:
    'A rule as data: `conditions` (all given must hold: `types`, `value_over`, `vendor_risk_in`, `liability_cap_absent`, `governing_law_not_in`, `terms_differ_from_standard` mapping key terms to the standard wording), `approvers` (a role, named members who all approve, or any N of a group), `step`, `reminder_days`, `escalation_days` and `escalate_to_role`. Unknown fields are refused: a 400 names the field. Requests already started keep the rule as it was.',
  body: policyBody,
  responses: { 201: policy },
});
operation({
  path: '/settings/approval-policies/{id}',
  method: 'put',
  tag,
  summary: 'Replace an approval policy (admins and owners); requests underway keep their copy',
  body: policyBody,
  responses: { 200: policy },
});
operation({
  path: '/settings/approval-policies/{id}',
  method: 'delete',
  tag,
  summary: 'Remove an approval policy',
  responses: { 204: 'Removed' },
});
operation({
  path: '/contracts/{id}/approvals',
  method: 'post',
  tag,
  summary: "Start the approvals the organization's policies require for the contract's current version",
  description:
    "Judges the current version's facts (its key terms extracted first if the text changed since), copies each matching policy into a request bound to the version's SHA-256 and to those facts, activates the first step and starts the workflow `approval-<id>` (mail to approvers, reminders, escalation). Emits `approval.requested`. Asking again for the same version answers the existing request (200).",
  responses: {
    200: {
      description: 'No approval required (`required: false` with a `detail`), or the request already started for this version',
      schema: z.object({ required: z.boolean(), detail: z.string().optional(), approval: approvalSchema.optional() }),
    },
    201: { description: 'The request started', schema: z.object({ required: z.literal(true), approval: approvalSchema }) },
  },
});
operation({
  path: '/contracts/{id}/approvals/override',
  method: 'post',
  tag,
  summary: 'An owner lets the current version go out for signature without the approvals it lacks',
  description:
    "The reason is mandatory; it is kept on the request (status `overridden`), in the activity feed (`approval.completed` with `override_reason`) and in the signature request's audit trail and sealed PDF. Other roles: 403.",
  body: overrideBody,
  responses: { 200: approval, 409: 'approval_closed: the version is already approved or overridden' },
});
operation({
  path: '/approvals',
  method: 'get',
  tag,
  summary: "The organization's approval requests; `assigned_to=me` is the caller's inbox (steps waiting for their decision)",
  query: approvalListQuery,
  responses: { 200: { description: 'A page of requests', schema: pageOf('approvals', approvalSchema) } },
});
operation({ path: '/approvals/{id}', method: 'get', tag, summary: 'One approval request', responses: { 200: approval } });
for (const [verb, event] of [
  ['approve', 'approval.approved'],
  ['reject', 'approval.rejected'],
] as const)
  operation({
    path: `/approvals/{id}/${verb}`,
    method: 'post',
    tag,
    summary: `${verb === 'approve' ? 'Approve' : 'Reject'} the active step, with an optional comment`,
    description: `One conditional write in the store (works while workers are busy). Emits \`${event}\`, and \`approval.completed\` when the request ends. An approver not named in any step: 403 (approval_not_approver); the requester or the version's author, unless the policy allows self-approval: 403 (approval_self_approval); an API key: 403 (approval_needs_person); viewers: 403.`,
    body: decisionBody,
    responses: { 200: approval, 409: conflicts },
  });
