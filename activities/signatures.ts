/**
 * What the signature workflow does to the world: reminders, expiry and completion.
 * Each step is guarded by the request's stored status, so a retried activity repeats
 * nothing (a completed request is never completed twice).
 */
import type { Services } from '../lib/services';
import { recordEvent } from '../lib/events';
import { appendAudit, issueCertificate, type AuditEntry } from '../lib/signature-evidence';
import { getSigningKey } from '../lib/signing-key';
import { Signature } from '../models/signature';
import { Contract } from '../models/contract';
import { OutgoingMail } from '../models/outgoing-mail';

type SignatureRecord = NonNullable<Awaited<ReturnType<typeof findPending>>>;

const findPending = (signatureId: string) => Signature.findOne({ _id: signatureId, status: 'pending' });

/** Appends an audit entry and moves the request out of `pending` in one conditional write. */
async function close(sig: SignatureRecord, status: 'expired' | 'completed', extra: Record<string, unknown> = {}) {
  const entry = appendAudit(sig.audit_trail as unknown as AuditEntry[], { type: status, at: new Date().toISOString() });
  const res = await Signature.updateOne({ _id: sig._id, status: 'pending' }, { $set: { status, ...extra }, $push: { audit_trail: entry } });
  return res.modifiedCount === 1;
}

export function createSignatureActivities(s: Services) {
  return {
    async sendSignatureReminders({ signatureId }: { signatureId: string }): Promise<void> {
      const sig = await findPending(signatureId);
      if (!sig) return;
      const waiting = sig.signers.filter((x) => x.status === 'pending' || x.status === 'viewed');
      // In an ordered request only the signer whose turn it is is reminded.
      const due = sig.ordered ? waiting.slice(0, 1) : waiting;
      if (due.length === 0) return;
      await OutgoingMail.insertMany(
        due.map((signer) => ({
          organization_id: sig.organization_id,
          to: signer.email,
          kind: 'signature_reminder',
          subject: `Reminder: please sign "${sig.contract_title}"`,
          body: `${sig.requested_by_name ?? 'Your counterparty'} is waiting for your signature on "${sig.contract_title}". Use the signing link you received; it expires ${sig.expires_at.toISOString()}.`,
          data: { signature_id: signatureId, signer_id: String(signer._id) },
        })),
      );
      const entry = appendAudit(sig.audit_trail as unknown as AuditEntry[], { type: 'reminded', at: new Date().toISOString(), detail: due.map((d) => d.email).join(', ') });
      await Signature.updateOne({ _id: sig._id, status: 'pending' }, { $push: { audit_trail: entry } });
    },

    async expireSignatureRequest({ signatureId }: { signatureId: string }): Promise<void> {
      const sig = await findPending(signatureId);
      if (!sig || !(await close(sig, 'expired'))) return;
      await recordEvent({
        organizationId: String(sig.organization_id),
        type: 'signature.expired',
        data: { signature_id: signatureId, contract_id: String(sig.contract_id), contract_title: sig.contract_title, expires_at: sig.expires_at.toISOString() },
        actor: { type: 'system', id: null, name: 'signature deadline' },
        resource: { type: 'signature', id: signatureId },
        summary: `Signature request for "${sig.contract_title}" expired`,
      });
    },

    async completeSignatureRequest({ signatureId }: { signatureId: string }): Promise<void> {
      const sig = await findPending(signatureId);
      if (!sig || sig.signers.some((x) => x.status !== 'signed')) return;
      const key = await getSigningKey(s.config);
      const completedAt = new Date();
      const trail = sig.audit_trail as unknown as AuditEntry[];
      const closing = appendAudit(trail, { type: 'completed', at: completedAt.toISOString() });
      const certificate = issueCertificate(key, {
        version: 1,
        signature_id: signatureId,
        contract_id: String(sig.contract_id),
        document_hash: sig.document_hash,
        signers: sig.signers.map((x) => ({ name: x.name, email: x.email, signed_at: x.signed_at!.toISOString() })),
        audit_head: closing.hash,
        issued_at: completedAt.toISOString(),
      });
      const done = await Signature.updateOne(
        { _id: sig._id, status: 'pending' },
        { $set: { status: 'completed', completed_at: completedAt, certificate }, $push: { audit_trail: closing } },
      );
      if (done.modifiedCount !== 1) return;
      const contractFilter = { _id: sig.contract_id, organization_id: sig.organization_id };
      await Contract.updateOne(contractFilter, { $set: { signed_at: completedAt } });
      const activated = await Contract.updateOne({ ...contractFilter, status: 'draft' }, { $set: { status: 'active' } });
      if (activated.modifiedCount === 1) {
        const contract = await Contract.findOne(contractFilter).lean();
        if (contract) {
          await recordEvent({
            organizationId: String(sig.organization_id),
            type: 'contract.updated',
            data: { id: String(contract._id), title: contract.title, type: contract.type, status: contract.status, counterparty: contract.counterparty, signed_at: completedAt.toISOString(), changes: ['status', 'signed_at'] },
            actor: { type: 'system', id: null, name: 'signature completion' },
            resource: { type: 'contract', id: String(contract._id) },
            summary: `Contract "${contract.title}" is active: every signer has signed`,
          });
        }
      }
    },
  };
}

export type SignatureActivities = ReturnType<typeof createSignatureActivities>;
