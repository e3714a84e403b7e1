import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

/**
 * An organization's approval policy: when its conditions hold for a contract's current
 * version, its approvers must approve before the contract goes out for signature. The rule
 * itself (conditions, approvers, days) is data validated by services/approvals/policy-rules.ts;
 * a request copies it, so a later change never alters approvals underway.
 */
const schema = new Schema(
  {
    ...tenantFields,
    name: { type: String, required: true },
    /** Policies of one step approve in parallel; steps follow one another, lowest first. */
    step: { type: Number, required: true },
    conditions: { type: Schema.Types.Mixed, default: {} },
    approvers: { type: Schema.Types.Mixed, required: true },
    reminder_days: { type: Number, required: true },
    escalation_days: { type: Number, default: null },
    escalate_to_role: { type: String, required: true },
    active: { type: Boolean, default: true },
    /** Whether the requester of an approval, or the author of the version under review, may count as an approver. */
    allow_self_approval: { type: Boolean, default: false },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const, minimize: false },
);
schema.plugin(basePlugin);

export type ApprovalPolicyDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const ApprovalPolicy = model('ApprovalPolicy', schema, 'approval_policies');
