/** Key-term extraction and renewal reminders, for workflows/contract-terms.ts and workflows/renewal-deadline.ts. */
import type { Engines } from '../platform/engines';
import { refreshContractTerms } from '../services/contracts/refresh-contract-terms';
import { planRenewalReminders, sendRenewalReminder } from '../services/contracts/renewal-deadlines';
import type { RefreshTermsInput } from '../workflows/contract-terms.shared';
import type { RenewalDeadlineInput } from '../workflows/renewal-deadline.shared';

export function createContractTermsActivities(s: Engines) {
  return {
    /** Extracts the terms again and re-plans the reminders (services/contracts/refresh-contract-terms.ts). */
    refreshContractTerms: (input: RefreshTermsInput) => refreshContractTerms(s, input),
    planRenewalReminders: (input: RenewalDeadlineInput) => planRenewalReminders(input),
    sendRenewalReminder: (input: RenewalDeadlineInput & { deadline: string; days: number }) => sendRenewalReminder(s, input),
  };
}

export type ContractTermsActivities = ReturnType<typeof createContractTermsActivities>;
