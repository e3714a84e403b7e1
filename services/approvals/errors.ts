/** The approval feature's own error codes (X-Error-Code). */
import { defineErrors } from '../../platform/errors';

export const approvalErrors = defineErrors({
  approval_out_of_order: { status: 409, meaning: "The approver's step is not active yet: an earlier step must approve first" },
  approval_stale_version: { status: 409, meaning: "The decision names a version hash that is not the request's" },
  approval_already_decided: { status: 409, meaning: 'The approver has already decided on this step' },
  approval_superseded: { status: 409, meaning: 'The contract changed since the request: start a new one for the current version' },
  approval_closed: { status: 409, meaning: 'The request is already approved, rejected or overridden' },
  approval_required: { status: 409, meaning: "The contract's current version needs approvals it does not have; `detail` names them" },
  approval_not_approver: { status: 403, meaning: 'The caller is not an approver of any step of this request' },
  approval_terms_pending: {
    status: 409,
    meaning: "The key terms of the contract's current version could not be extracted before judging it; `detail` says why; retry",
  },
  approval_self_approval: {
    status: 403,
    meaning: 'The caller requested this approval or wrote the version under review, and the policy does not allow self-approval',
  },
  approval_needs_person: { status: 403, meaning: 'Approval decisions come from people: an API key cannot approve or reject' },
  approval_busy: { status: 409, meaning: 'Other decisions landed at the same moment; retry' },
});
