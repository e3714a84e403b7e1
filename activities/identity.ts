/** Activities of a member's leaving (services/identity/deprovision-member.ts). */
import {
  announceMemberDeprovisioned,
  endMemberSessions,
  settleMemberApiKeys,
  type DeprovisionOutcome,
} from '../services/identity/deprovision-member';
import type { DeprovisionStep } from '../workflows/member-deprovision.shared';

export function createIdentityActivities() {
  return {
    endMemberSessions: (step: DeprovisionStep) => endMemberSessions(step),
    settleMemberApiKeys: (step: DeprovisionStep) => settleMemberApiKeys(step),
    announceMemberDeprovisioned: (outcome: DeprovisionOutcome) => announceMemberDeprovisioned(outcome),
  };
}

export type IdentityActivities = ReturnType<typeof createIdentityActivities>;
