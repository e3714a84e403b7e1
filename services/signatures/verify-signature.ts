/**
 * Verifying a request's evidence: the frozen document (the content, or the PDF of record's
 * copy) against its hash, whether the contract still has that document, the audit trail's
 * hash chain, the Ed25519 certificate, and the sealed PDF's PAdES signature. `valid` holds
 * only for a completed request where all hold.
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { Contract } from '../../models/contract';
import { auditOf, type AuditEntry, type SignatureRecord } from '../../models/signature';
import { brokenAuditLink, certificateValid, sha256, type Certificate, type CertificatePayload } from './signature-evidence';
import { getSigningKey } from './signing-key';
import { getSignatureRequest } from './list-signatures';
import { sealReport } from './verify-seal';
import { PdfOfRecordChangedError, readPdfOfRecord } from './pdf-of-record';
import { sha256Hex } from '../../platform/security/crypto';
import type { ApprovalFacts } from '../contracts/contract-facts';

/** SHA-256 of the frozen document's bytes as kept now; null when they are gone. */
async function frozenHash(sig: SignatureRecord): Promise<string | null> {
  if (!sig.record_document_id) return sha256(sig.document);
  try {
    const bytes = await readPdfOfRecord(sig);
    return bytes && sha256Hex(bytes);
  } catch (err) {
    if (err instanceof PdfOfRecordChangedError) return null;
    throw err;
  }
}

/** The facts an entry of the trail records (the approval policies' reading), or null. */
const factsOf = (e: AuditEntry | undefined) => (e?.facts ? (JSON.parse(e.facts) as ApprovalFacts) : null);

export async function verifySignature(s: Engines, p: Principal, id: unknown) {
  const sig = await getSignatureRequest(p, id);
  const reasons: string[] = [];
  const contract = await Contract.findOne({ _id: sig.contract_id, organization_id: sig.organization_id }).lean();
  if (!contract) reasons.push('the contract no longer exists');
  else if (sig.record_document_id) {
    if (!contract.document_id?.equals(sig.record_document_id))
      reasons.push("the contract's PDF of record changed after the signature request");
  } else if (sha256(contract.content) !== sig.document_hash) reasons.push('the contract content changed after the signature request');
  if ((await frozenHash(sig)) !== sig.document_hash) reasons.push('the frozen document does not match its hash');
  const trail = auditOf(sig);
  const broken = brokenAuditLink(trail);
  if (broken !== -1) reasons.push(`the audit trail is broken at entry ${broken}`);
  const certificate = (sig.certificate ?? null) as Certificate | null;
  if (sig.status !== 'completed' || !certificate) reasons.push(`the request is ${sig.status}, not completed`);
  else {
    const key = await getSigningKey(s);
    if (!certificateValid(key.publicKey, certificate)) reasons.push('the certificate signature does not verify');
    else {
      const payload = JSON.parse(certificate.payload) as CertificatePayload;
      if (payload.signature_id !== sig.id || payload.document_hash !== sig.document_hash)
        reasons.push('the certificate belongs to other evidence');
      if (!trail.some((e) => e.type === 'completed' && e.hash === payload.audit_head))
        reasons.push('the certificate does not match the audit trail');
    }
  }
  return {
    valid: reasons.length === 0,
    document_hash: sig.document_hash,
    signers: sig.signers.map((x) => ({ name: x.name, email: x.email, signed_at: x.signed_at })),
    certificate,
    facts_at_sending: factsOf(trail.find((e) => e.type === 'requested')),
    approvals: trail
      .filter((e) => e.type === 'approved' || e.type === 'approval_overridden')
      .map((e) => ({
        type: e.type,
        name: e.name ?? null,
        at: e.at,
        detail: e.detail ?? null,
        facts: factsOf(e),
      })),
    ...(reasons.length ? { reasons } : {}),
    seal: await sealReport(s, sig),
  };
}
