/** An edit's effect on approvals: open requests for another version of the contract are superseded. */
import { trusted, type Types } from 'mongoose';
import { Approval } from '../../models/approval';

export async function supersedeOpenApprovals(
  organizationId: Types.ObjectId,
  contractId: Types.ObjectId,
  currentSha256: string,
): Promise<number> {
  // The workflow of each learns it on its next wake (a reminder or escalation finds the request closed).
  const res = await Approval.updateMany(
    { organization_id: organizationId, contract_id: contractId, status: 'pending', version_sha256: trusted({ $ne: currentSha256 }) },
    { $set: { status: 'superseded', completed_at: new Date() }, $inc: { rev: 1 } },
  );
  return res.modifiedCount;
}
