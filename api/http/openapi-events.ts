/**
 * The webhook payloads in the OpenAPI document (3.1 `webhooks`): for every event name, the
 * envelope services/webhooks/deliver-events.ts `webhookBody` sends, the `data` its emitter records, and the
 * signature headers of services/webhooks/webhook-signature.ts. Data objects are open: receivers must
 * tolerate fields added later.
 */
import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../../models/event';
import { CONTRACT_STATUSES } from '../../models/contract';
import { VENDOR_STATUSES } from '../../models/vendor';
import { ROLES } from '../../platform/security/rbac';
import { RISK_LEVELS } from '../../models/contract';
import { MAIL_KINDS } from '../../models/outgoing-mail';
import { registry, timestamp } from './openapi';
import { idSchema } from '../../platform/input';

/** contractEventData (models/contract.ts): never the content. */
const contractData = z.looseObject({
  id: idSchema,
  title: z.string(),
  type: z.string(),
  status: z.enum(CONTRACT_STATUSES),
  counterparty: z.string(),
});
const signatureData = z.looseObject({ signature_id: idSchema, contract_id: idSchema });
const signerData = signatureData.extend({ signer_name: z.string(), signer_email: z.email() });
/** The member a team event is about (api/routes/auth.ts, team.ts). */
const memberData = z.looseObject({ id: idSchema, email: z.email(), full_name: z.string() });
/** An API key (never its secret): services/identity/create-api-key.ts. */
const apiKeyData = z.looseObject({
  id: idSchema,
  name: z.string(),
  prefix: z.string(),
  role: z.enum(ROLES),
  created_by: idSchema,
});
/** vendorEventData (models/vendor.ts). */
const vendorData = z.looseObject({
  id: idSchema,
  name: z.string(),
  category: z.string().nullable(),
  status: z.enum(VENDOR_STATUSES),
  risk_level: z.enum(RISK_LEVELS).nullable(),
  risk_score: z.number().nullable(),
});

/** finishImport (services/imports/import-phases.ts): the import's outcome and counts. */
const importData = z.looseObject({
  id: idSchema,
  status: z.enum(['completed', 'failed']),
  rows: z.object({ total: z.int(), done: z.int(), failed: z.int() }),
  files: z.object({ total: z.int(), ingested: z.int(), failed: z.int() }),
  terms_extracted: z.int(),
  started_at: timestamp,
  finished_at: timestamp,
  error: z.string().nullable().meta({ description: 'Why a failed import stopped' }),
});

/** services/approvals/approval-events.ts: the request, the contract and the version it binds to. */
const approvalData = z.looseObject({
  approval_id: idSchema,
  contract_id: idSchema,
  contract_title: z.string(),
  version_number: z.number().int(),
  version_sha256: z.string(),
  status: z.enum(['pending', 'approved', 'rejected', 'superseded', 'overridden']),
});
const approverData = approvalData.extend({
  step: z.number().int(),
  approver: z.object({ id: idSchema, name: z.string() }),
  comment: z.string().nullable(),
});

/** The `data` of each event, as its emitter records it. */
export const EVENT_DATA = {
  'contract.created': contractData.extend({
    vendor_id: idSchema.optional().meta({ description: 'When generated as a vendor NDA' }),
    import_id: idSchema.optional().meta({ description: 'When created by a bulk import (POST /imports)' }),
  }),
  'contract.updated': contractData.extend({
    changed_fields: z.array(z.string()).optional().meta({
      description: 'Fields that changed: by an API update, an AI draft, the signature completion (status, signed_at) or an expiry (status)',
    }),
    signed_at: timestamp.optional(),
  }),
  'contract.deleted': contractData,
  'contract.analyzed': contractData.extend({ risk_score: z.number(), risk_level: z.enum(RISK_LEVELS) }),
  'contract.renewal_due': contractData.extend({ end_date: z.iso.date(), days_until_end: z.number().int() }),
  'signature.requested': signatureData.extend({
    contract_title: z.string(),
    signers: z.array(z.object({ name: z.string(), email: z.email() })),
    ordered: z.boolean(),
    expires_at: timestamp,
  }),
  'signature.viewed': signerData,
  'signature.completed': signerData.extend({ signed_at: timestamp }),
  'signature.declined': signerData.extend({ reason: z.string().optional() }),
  'signature.expired': signatureData.extend({ contract_title: z.string(), expires_at: timestamp }),
  'compliance.alert': z.looseObject({
    id: idSchema,
    task_id: idSchema,
    title: z.string(),
    priority: z.string(),
    status: z.string(),
    regulation_type: z.string(),
    jurisdiction: z.string(),
    rule_id: z.string(),
    contract_id: idSchema,
    contract_title: z.string(),
    due_date: z.iso.date(),
    scan_id: idSchema.nullable(),
  }),
  'vendor.created': vendorData,
  'vendor.risk_assessed': vendorData,
  'team.member_joined': memberData.extend({
    role: z.enum(ROLES),
    invite_id: idSchema.optional().meta({ description: 'The invitation used, when the member came through one' }),
    via: z.enum(['sso', 'scim']).optional().meta({ description: "Created at a first SSO sign-in, or by the identity provider's SCIM" }),
  }),
  'team.mfa_enabled': memberData.extend({
    replaced: z
      .boolean()
      .meta({ description: 'True when an enrolled authenticator was replaced (which takes a current code or the password)' }),
  }),
  'team.mfa_recovery_code_used': memberData.extend({ recovery_codes_left: z.number().int() }),
  'team.mfa_reset': memberData,
  'team.mfa_required_changed': z.looseObject({
    id: idSchema.meta({ description: 'The organization' }),
    mfa_required: z.boolean().meta({ description: 'The new setting' }),
  }),
  'team.role_changed': memberData.extend({ role: z.enum(ROLES), previous_role: z.enum(ROLES) }),
  'team.member_deactivated': memberData.extend({ via: z.enum(['team', 'scim']) }),
  'team.member_reactivated': memberData.extend({ via: z.enum(['team', 'scim']) }),
  'team.member_deprovisioned': z.looseObject({
    id: idSchema.meta({ description: 'The member who left (deactivated or removed)' }),
    email: z.email(),
    reason: z.enum(['deactivated', 'removed']),
    sessions_ended: z.number().int(),
    api_keys: z.object({ policy: z.enum(['revoke', 'transfer']), count: z.number().int() }),
    approval_decisions_removed: z.number().int(),
    compliance_tasks_reassigned: z.number().int(),
  }),
  'team.api_key_created': apiKeyData,
  'team.api_key_revoked': apiKeyData,
  'mail.failed': z.looseObject({
    id: idSchema.meta({ description: 'The message (GET /settings/mail)' }),
    kind: z.enum(MAIL_KINDS),
    to: z.string(),
    subject: z.string(),
    attempts: z.number().int(),
    error: z
      .string()
      .nullable()
      .meta({ description: "The SMTP server's refusal, or the last transient error when the retry window ran out" }),
  }),
  'import.completed': importData,
  'import.failed': importData,
  'approval.requested': approvalData.extend({
    steps: z.array(z.object({ step: z.number().int(), approvers: z.array(z.string()) })),
  }),
  'approval.approved': approverData,
  'approval.rejected': approverData,
  'approval.escalated': approvalData.extend({ step: z.number().int(), escalated_to_role: z.enum(['admin', 'owner']) }),
  'approval.completed': approvalData.extend({
    override_reason: z.string().nullable().meta({ description: "An owner's reason when the approvals were overridden" }),
  }),
} satisfies Record<EventType, z.ZodObject>;

const headers = z.object({
  'X-Service-Signature': z
    .string()
    .meta({ description: '`sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the subscription secret' }),
  'X-Service-Event': z.enum(EVENT_TYPES).meta({ description: 'The event name' }),
  'X-Service-Delivery': z.string().meta({ description: 'The delivery id, the same on every attempt' }),
  'webhook-id': z.string().meta({ description: 'Standard Webhooks: the delivery id' }),
  'webhook-timestamp': z.string().meta({ description: 'Standard Webhooks: Unix seconds of this attempt' }),
  'webhook-signature': z.string().meta({ description: 'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`' }),
});

for (const type of EVENT_TYPES) {
  const payload = registry.register(
    `Event_${type.replace('.', '_')}`,
    z.object({
      event: z.literal(type),
      timestamp: timestamp.meta({ description: 'When the event occurred' }),
      data: EVENT_DATA[type],
      organization_id: idSchema,
    }),
  );
  registry.registerWebhook({
    method: 'post',
    path: type,
    operationId: `on${type
      .split(/[._]/)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join('')}`,
    summary: `The ${type} event`,
    tags: ['Webhooks'],
    description:
      'Sent to each subscribed URL; any 2xx acknowledges it. Up to 3 attempts (immediately, 30 s after the first failure, 5 min after the second) with the same delivery id; 410 Gone disables the subscription.',
    request: { headers, body: { required: true, content: { 'application/json': { schema: payload } } } },
    responses: { 200: { description: 'Received (any 2xx)' }, 410: { description: 'Gone: stop sending to this URL' } },
  });
}
