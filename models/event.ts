import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';
import { announceWrites } from './writes';
import { defineList } from '../platform/lists/lists';

export const EVENT_TYPES = [
  'contract.created',
  'contract.updated',
  'contract.deleted',
  'contract.analyzed',
  'contract.renewal_due',
  'signature.requested',
  'signature.viewed',
  'signature.completed',
  'signature.declined',
  'signature.expired',
  'compliance.alert',
  'vendor.created',
  'vendor.risk_assessed',
  'team.member_joined',
  'team.mfa_enabled',
  'team.mfa_recovery_code_used',
  'team.mfa_reset',
  'team.mfa_required_changed',
  'team.role_changed',
  'team.member_deactivated',
  'team.member_reactivated',
  'team.member_deprovisioned',
  'team.api_key_created',
  'team.api_key_revoked',
  'mail.failed',
  'import.completed',
  'import.failed',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.escalated',
  'approval.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The outbox: every domain event, written with the change that caused it. The relay turns
 * unrelayed rows into workflow starts (webhook deliveries, notifications, syncs); the
 * activity feed reads the same rows.
 */
const schema = new Schema({
  ...tenantFields,
  type: { type: String, enum: EVENT_TYPES, required: true },
  data: { type: Schema.Types.Mixed, required: true },
  actor: {
    type: { type: String, enum: ['user', 'api_key', 'system', 'signer'], required: true },
    id: { type: String, default: null },
    name: { type: String, default: null },
  },
  resource_type: { type: String, required: true },
  resource_id: { type: String, required: true },
  summary: { type: String, required: true },
  occurred_at: { type: Date, required: true },
  relayed_at: { type: Date, default: null },
});
schema.plugin(basePlugin);
// The activity list's index (platform/lists/list-index.ts) follows every write but the relay's mark.
announceWrites(schema, { ignored: ['relayed_at', 'updated_at'] });
schema.index({ relayed_at: 1, occurred_at: 1 });
// The activity feed (activityList): newest first, optionally by type (or a group of types).
schema.index({ organization_id: 1, occurred_at: -1, _id: -1 });
schema.index({ organization_id: 1, type: 1, occurred_at: -1, _id: -1 });

export type EventDoc = InferSchemaType<typeof schema>;
export const Event = model('Event', schema, 'events');

export const activityList = defineList({
  name: 'activity',
  model: Event,
  filters: ['type'],
  sort: { field: 'occurred_at', order: -1 },
  row: activityView,
  // `type=contract` lists every contract.* event.
  derived: { category: (e) => e.type.split('.')[0]! },
});

/** One entry of the activity feed. */
export function activityView(e: InstanceType<typeof Event>) {
  return {
    id: e.id,
    type: e.type,
    actor: { type: e.actor?.type ?? 'system', id: e.actor?.id ?? null, name: e.actor?.name ?? null },
    resource_type: e.resource_type,
    resource_id: e.resource_id,
    summary: e.summary,
    timestamp: e.occurred_at,
  };
}
