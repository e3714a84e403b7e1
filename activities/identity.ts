/** Activities of a member's leaving (services/identity/deprovision-member.ts, and services/approvals/remove-leaver.ts for their approvals). */
import {
  announceMemberDeprovisioned,
  endMemberSessions,
  settleMemberApiKeys,
  type DeprovisionOutcome,
} from '../services/identity/deprovision-member';
import { settleMemberApprovals } from '../services/approvals/remove-leaver';
import type { Engines } from '../platform/engines';
import type { DeprovisionStep } from '../workflows/member-deprovision.shared';

export function createIdentityActivities(s: Engines) {
  return {
    endMemberSessions: (step: DeprovisionStep) => endMemberSessions(s, step),
    settleMemberApiKeys: (step: DeprovisionStep) => settleMemberApiKeys(step),
    settleMemberApprovals: (step: DeprovisionStep) => settleMemberApprovals(s, step),
    announceMemberDeprovisioned: (outcome: DeprovisionOutcome) => announceMemberDeprovisioned(s, outcome),
  };
}

export type IdentityActivities = ReturnType<typeof createIdentityActivities>;
