/** Activities of a member's leaving (services/identity/deprovision-member.ts). */
import {
  announceMemberDeprovisioned,
  endMemberSessions,
  settleMemberApiKeys,
  settleMemberApprovals,
  type DeprovisionOutcome,
} from '../services/identity/deprovision-member';
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
