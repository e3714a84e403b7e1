/**
 * Completing a signature request once every signer has signed: the request is closed with
 * its `completed` audit entry and the Ed25519 certificate over the evidence in one
 * conditional write, everyone is mailed, and the contract gets its signing time (a draft
 * becomes active, told as `contract.updated`: services/contracts/activate-signed-contract.ts). Guarded by the stored status, so a retry
 * repeats nothing: a request is never completed twice, and a retry after the close still
 * finishes the contract's side.
 */
import type { Engines } from '../../platform/engines';
import { Signature } from '../../models/signature';
import { mailSignatureCompleted } from './signature-mail';
import { changeWithAudit } from './change-with-audit';
import { issueCertificate } from './signature-evidence';
import { getSigningKey } from './signing-key';
import { activateSignedContract } from '../contracts/activate-signed-contract';

export async function completeSignatureRequest(s: Engines, signatureId: string): Promise<void> {
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
  await activateSignedContract(sig.organization_id, sig.contract_id, sig.completed_at);
}
