/**
 * Completing a signature request once every signer has signed: the request is closed with
 * its `completed` audit entry and the Ed25519 certificate over the evidence in one
 * conditional write, everyone is mailed, and the contract gets its signing time (a draft
 * becomes active, told as `contract.updated`). Guarded by the stored status, so a retry
 * repeats nothing: a request is never completed twice, and a retry after the close still
 * finishes the contract's side.
 */
import type { Services } from '../../platform/engines';
import { recordEvent } from '../../platform/outbox/record-event';
import { Contract } from '../../models/contract';
import { Signature } from '../../models/signature';
import { mailSignatureCompleted } from '../mail/signatures';
import { changeWithAudit } from './change-with-audit';
import { issueCertificate } from './signature-evidence';
import { getSigningKey } from './signing-key';
import { makeContractsSearchable, makeSearchable } from '../search/reflect-contracts';

export async function completeSignatureRequest(s: Services, signatureId: string): Promise<void> {
  const key = await getSigningKey(s);
  const completedAt = new Date();
  const done = await changeWithAudit(signatureId, { status: 'pending' }, (sig) =>
    sig.signers.some((x) => x.status !== 'signed')
      ? null
      : {
          entry: { type: 'completed', at: completedAt.toISOString() },
          set: (closing) => ({
            status: 'completed',
            completed_at: completedAt,
            certificate: issueCertificate(key, {
              version: 1,
              signature_id: signatureId,
              contract_id: String(sig.contract_id),
              document_hash: sig.document_hash,
              signers: sig.signers.map((x) => ({ name: x.name, email: x.email, signed_at: x.signed_at!.toISOString() })),
              audit_head: closing.hash,
              issued_at: completedAt.toISOString(),
            }),
          }),
        },
  );
  const sig = done?.sig ?? (await Signature.findOne({ _id: signatureId, status: 'completed' }));
  if (!sig?.completed_at) return;
  await mailSignatureCompleted(s, sig);
  const signedAt = sig.completed_at;
  const contractFilter = { _id: sig.contract_id, organization_id: sig.organization_id };
  await Contract.updateOne(contractFilter, { $set: { signed_at: signedAt } });
  const activated = await Contract.updateOne({ ...contractFilter, status: 'draft' }, { $set: { status: 'active' } });
  const contract = activated.modifiedCount === 1 ? await Contract.findOne(contractFilter).lean() : null;
  // Searchable as signed (no signature pending, its signing time, active) once this ends: through its event, or itself.
  if (!contract) return makeContractsSearchable(s, String(sig.organization_id), [String(sig.contract_id)]);
  const event = await recordEvent(s, {
    organizationId: String(sig.organization_id),
    type: 'contract.updated',
    data: {
      id: String(contract._id),
      title: contract.title,
      type: contract.type,
      status: contract.status,
      counterparty: contract.counterparty,
      signed_at: signedAt.toISOString(),
      changed_fields: ['status', 'signed_at'],
    },
    actor: { type: 'system', id: null, name: 'signature completion' },
    resource: { type: 'contract', id: String(contract._id) },
    summary: `Contract "${contract.title}" is active: every signer has signed`,
  });
  await makeSearchable(s, event);
}
