/** Starts `member-deprovision-<userId>` for a member who left; joins the run already going, if any. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { startWorkflow } from '../../platform/temporal/client';
import type { UserDoc } from '../../models/user';
import { memberDeprovision, memberDeprovisionWorkflowId } from '../../workflows/member-deprovision.shared';

export async function startDeprovisioning(s: Engines, p: Principal, member: UserDoc, reason: 'deactivated' | 'removed'): Promise<void> {
  await startWorkflow(s, memberDeprovision, {
    workflowId: memberDeprovisionWorkflowId(member.id),
    args: [
      {
        organizationId: p.organizationId,
        userId: member.id,
        email: member.email,
        fullName: member.full_name,
        reason,
        actor: { type: p.kind, id: p.id, name: p.name },
      },
    ],
    organizationId: p.organizationId,
    recordId: member.id,
    ifExists: 'join',
  });
}
