import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'superseded', 'overridden'] as const;
export const GROUP_STATUSES = ['pending', 'active', 'approved', 'rejected'] as const;

/** What one matching policy asks of its step, copied from the policy when the request starts. */
const requirementSchema = new Schema(
  {
    policy_id: { type: Schema.Types.ObjectId, required: true },
    policy_name: { type: String, required: true },
    /** The rule as it was: `{ kind: role | members | any_n_of, ... }`. */
    approvers: { type: Schema.Types.Mixed, required: true },
    /** Approvals this requirement needs: 1 for a role, every named member, or N. */
    required: { type: Number, required: true },
    /** Why the policy applies (its conditions that held), for people. */
    reasons: { type: [String], default: [] },
    reminder_days: { type: Number, required: true },
    escalation_days: { type: Number, default: null },
    escalate_to_role: { type: String, required: true },
    /** The policy lets the requester, or the author of the version, count as an approver. */
    allow_self_approval: { type: Boolean, default: false },
  },
  { _id: false, minimize: false },
);

const decisionSchema = new Schema(
  {
    user_id: { type: Schema.Types.ObjectId, required: true },
    name: { type: String, required: true },
    /** `removed`: the approver left the organization before deciding (services/approvals/remove-leaver.ts). */
    decision: { type: String, enum: ['approved', 'rejected', 'removed'], required: true },
    comment: { type: String, default: null },
    at: { type: Date, required: true },
    /** The indexes of the step's requirements this approver counted for. */
    requirements: { type: [Number], default: [] },
  },
  { _id: false },
);

/** A step: its requirements approve in parallel; it is active when every earlier step is approved. */
const groupSchema = new Schema(
  {
    step: { type: Number, required: true },
    status: { type: String, enum: GROUP_STATUSES, required: true },
    requirements: { type: [requirementSchema], required: true },
    decisions: { type: [decisionSchema], default: [] },
    activated_at: { type: Date, default: null },
    completed_at: { type: Date, default: null },
    /** When the step escalated to its manager role (members of it may then decide too); once. */
    escalated_at: { type: Date, default: null },
  },
  { _id: false },
);

/**
 * An approval request for one version of a contract (bound to its SHA-256 and to the facts the
 * policies read), with ordered
 * groups as Ironclad's API models them. Every decision is one conditional write on `rev`
 * (services/approvals/decide-approval.ts); the workflow `approval-<id>` owns time only.
 */
const schema = new Schema(
  {
    ...tenantFields,
    contract_id: { type: Schema.Types.ObjectId, required: true },
    contract_title: { type: String, required: true },
    version_number: { type: Number, required: true },
    version_sha256: { type: String, required: true },
    /** Who wrote the version under review: like the requester, not an approver unless the policy allows it. */
    version_author_id: { type: Schema.Types.ObjectId, default: null },
    /**
     * Every fact the policies read when the request started (services/contracts/contract-facts.ts),
     * and their SHA-256: the request covers these facts and no others.
     */
    facts: { type: Schema.Types.Mixed, default: null },
    facts_sha256: { type: String, default: null },
    status: { type: String, enum: APPROVAL_STATUSES, default: 'pending' },
    groups: { type: [groupSchema], default: [] },
    requested_by: { type: Schema.Types.ObjectId, default: null },
    requested_by_name: { type: String, default: null },
    override: {
      type: new Schema({ user_id: Schema.Types.ObjectId, name: String, reason: String, at: Date, missing: [String] }, { _id: false }),
      default: null,
    },
    completed_at: { type: Date, default: null },
    /** Bumped by every write: a decision applies only to the state it was checked against. */
    rev: { type: Number, default: 0 },
    workflow_id: { type: String, default: null },
  },
  // `facts` keeps an empty map as written: its hash was taken over it.
  { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } as const, minimize: false },
);
schema.plugin(basePlugin);
schema.index({ organization_id: 1, contract_id: 1, status: 1 });
schema.index({ organization_id: 1, status: 1, created_at: -1 });

export type ApprovalRecord = HydratedDocument<InferSchemaType<typeof schema>>;
export const Approval = model('Approval', schema, 'approvals');
