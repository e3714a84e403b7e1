/**
 * Extracts a contract's key terms again and re-plans its renewal reminders, for a changed
 * contract or for a contract document that became ready. A document not of category
 * `contract`, or attached to none, and a contract deleted meanwhile change nothing.
 */
import type { Engines } from '../../platform/engines';
import { Contract } from '../../models/contract';
import { Document } from '../../models/document';
import type { RefreshTermsInput } from '../../workflows/contract-terms.shared';
import { extractContractTerms } from './contract-terms';
import { scheduleRenewalReminders } from './renewal-deadlines';

export async function refreshContractTerms(s: Engines, input: RefreshTermsInput): Promise<boolean> {
  let target: { organizationId: string; contractId: string } | null = null;
  if ('documentId' in input) {
    const doc = await Document.findById(input.documentId);
    if (doc?.category === 'contract' && doc.contract_id)
      target = { organizationId: doc.organization_id.toHexString(), contractId: doc.contract_id.toHexString() };
  } else if (await Contract.exists({ _id: input.contractId, organization_id: input.organizationId })) {
    target = input;
  }
  if (!target || !(await extractContractTerms(s, target.organizationId, target.contractId))) return false;
  await scheduleRenewalReminders(s, target.organizationId, target.contractId);
  return true;
}
