/**
 * A signature request's completion, on the contract's side: the contract gets its signing
 * time, and a draft becomes active, told as its own `contract.updated`. Safe to repeat: a
 * retry sets the same time and finds the contract active already.
 */
import type { Types } from 'mongoose';
import { Contract } from '../../models/contract';
import { recordContractEvent } from './contract-events';

export async function activateSignedContract(organizationId: Types.ObjectId, contractId: Types.ObjectId, signedAt: Date): Promise<void> {
  const contractFilter = { _id: contractId, organization_id: organizationId };
  await Contract.updateOne(contractFilter, { $set: { signed_at: signedAt } });
  const activated = await Contract.updateOne({ ...contractFilter, status: 'draft' }, { $set: { status: 'active' } });
  if (activated.modifiedCount !== 1) return;
  const contract = await Contract.findOne(contractFilter);
  if (!contract) return;
  await recordContractEvent(
    String(organizationId),
    { type: 'system', id: null, name: 'signature completion' },
    'contract.updated',
    contract,
    `Contract "${contract.title}" is active: every signer has signed`,
    { signed_at: signedAt.toISOString(), changed_fields: ['status', 'signed_at'] },
  );
}
