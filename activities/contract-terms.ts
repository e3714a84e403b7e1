/** Key-term extraction and renewal reminders, for workflows/contract-terms.ts and workflows/renewal-deadline.ts. */
import type { Services } from '../platform/services';
import { Contract } from '../models/contract';
import { Document } from '../models/document';
import { extractContractTerms } from '../services/contracts/contract-terms';
import { planRenewalReminders, scheduleRenewalReminders, sendRenewalReminder } from '../services/contracts/renewal-deadlines';
import type { RefreshTermsInput, RenewalDeadlineInput } from '../workflows/renewal-deadline.shared';

export function createContractTermsActivities(s: Services) {
  return {
    /** Extracts the terms again and re-plans the reminders; a document not of category contract, or attached to none, changes nothing. */
    async refreshContractTerms(input: RefreshTermsInput): Promise<boolean> {
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
    },
    planRenewalReminders: (input: RenewalDeadlineInput) => planRenewalReminders(input),
    sendRenewalReminder: (input: RenewalDeadlineInput & { deadline: string; days: number }) => sendRenewalReminder(s, input),
  };
}

export type ContractTermsActivities = ReturnType<typeof createContractTermsActivities>;
