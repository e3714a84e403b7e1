/**
 * Deleting a contract leaves nothing live behind: its pending signature requests are
 * cancelled (the links answer 410), its open compliance tasks resolved, its integration
 * links forgotten (vendors keep their last copy) and its chunks removed from the index.
 *
 * Crash safety without transactions (FerretDB has none): `DELETE /contracts/:id` records
 * `contract.deleted` first (the outbox row), then closes the records here. The relay hands
 * the event to `contractDeletionConsumer`, whose workflow closes them again (every step is
 * idempotent) and removes the chunks. A crash after the event therefore ends in a finished
 * deletion, and no deletion can happen without its event.
 *
 * It closes the records of several features (signatures, compliance, integrations, search),
 * so it stands above them all, apart from services/contracts/, which they build on.
 */
import { Types, trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import type { EventConsumer } from '../../platform/outbox/relay';
import { startWorkflow } from '../../platform/temporal/client';
import { contractDeletion, type ContractDeletion, contractDeletionWorkflowId } from '../../workflows/contract-deletion.shared';
import { cancelSignatureRequest } from '../signatures/signal-signature-request';
import { Contract } from '../../models/contract';
import { Signature } from '../../models/signature';
import { ComplianceTask, OPEN_STATUSES } from '../../models/compliance-task';
import { IntegrationLink } from '../../models/integration-link';
import { removeContract } from '../search/contract-index';
import { makeContractsSearchable, reflectContracts } from '../search/reflect-contracts';
import { emitContractEvent } from '../contracts/contract-events';
import { getContract } from '../contracts/get-contract';

/** The deletion's workflow step: the store part again (idempotent), then the contract's chunks out of the index. */
export async function finishContractDeletion(s: Engines, deletion: ContractDeletion): Promise<void> {
  await closeContract(s, deletion);
  await Promise.all([
    removeContract(s, deletion.organizationId, deletion.contractId),
    reflectContracts(s, deletion.organizationId, [deletion.contractId]),
  ]);
}

/** Removes the contract and closes what refers to it, in the store. Safe to run again. */
export async function closeContract(s: Engines, { organizationId, contractId, by }: ContractDeletion): Promise<void> {
  const org = new Types.ObjectId(organizationId);
  const id = new Types.ObjectId(contractId);
  await Contract.deleteOne({ _id: id, organization_id: org });
  // After the contract is gone, so a request created meanwhile is found here (POST /signatures
  // checks the contract again after its insert and withdraws the request when it is gone).
  const pending = await Signature.find({ organization_id: org, contract_id: id, status: 'pending' }, { _id: 1 }).lean();
  for (const { _id } of pending) await cancelSignatureRequest(s, _id, by, 'the contract was deleted');
  await ComplianceTask.updateMany(
    { organization_id: org, contract_id: id, status: trusted({ $in: OPEN_STATUSES }) },
    { $set: { status: 'resolved', resolved_at: new Date() } },
  );
  await IntegrationLink.deleteMany({ organization_id: org, contract_id: contractId });
}

export async function deleteContract(s: Engines, p: Principal, contractId: unknown): Promise<void> {
  const contract = await getContract(p, contractId);
  // The event first: should this process stop before the records are closed, the relay
  // finishes the deletion from the event (contractDeletionConsumer below); never the reverse.
  await emitContractEvent(s, p, 'contract.deleted', contract, `Contract "${contract.title}" deleted`);
  await closeContract(s, { organizationId: p.organizationId, contractId: contract.id, by: p.name });
  await makeContractsSearchable(s, p.organizationId, [contract.id]);
}

/** Finishes every recorded deletion: `contract-deletion-<eventId>` closes the records and removes the chunks. */
export const contractDeletionConsumer: EventConsumer = {
  name: 'contract-deletion',
  async consume(s, event) {
    if (event.type !== 'contract.deleted') return;
    const organizationId = event.organization_id.toHexString();
    const input: ContractDeletion = { organizationId, contractId: event.resource_id, by: event.actor?.name ?? 'system' };
    await startWorkflow(s, contractDeletion, {
      workflowId: contractDeletionWorkflowId(event.id),
      args: [input],
      organizationId,
      recordId: event.resource_id,
    });
  },
};
