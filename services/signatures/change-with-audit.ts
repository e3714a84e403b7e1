/**
 * The one way a signature request changes: with its audit entry, one change at a time, chained to
 * the trail as it stood (the trail's length is the record's version).
 */
import { trusted, type Types } from 'mongoose';
import { Signature, auditOf, type AuditEntry, type AuditEntryInput, type SignatureRecord } from '../../models/signature';
import { exclusively } from '../../platform/claims';
import { appendAudit } from './signature-evidence';

export interface AuditedChange {
  entry: AuditEntryInput;
  /** Fields to set with the entry; may depend on the entry's hash (the certificate does). */
  set?: (entry: AuditEntry) => Record<string, unknown>;
}

/** The sealed tokens `fields` leave unusable: every one when the request closes, else those of signers who signed or declined. */
function spentTokens(sig: SignatureRecord, fields: Record<string, unknown>): Record<string, null> {
  const closes = typeof fields.status === 'string' && fields.status !== 'pending';
  const spent = sig.signers.flatMap((x, i) => {
    const next = fields[`signers.${i}.status`];
    return x.token_sealed && (closes || next === 'signed' || next === 'declined') ? [[`signers.${i}.token_sealed`, null] as const] : [];
  });
  return Object.fromEntries(spent);
}

/** Every change of one signature request is made under its claim (platform/claims.ts). */
const SIGNATURE_CHANGES = 'signature-request';

/**
 * Applies one change together with its audit entry, while the request still matches `filter`,
 * under the request's claim: concurrent acts (two signers, eight tabs of one signer, a
 * reminder) take turns, each reading what the one before wrote, so they never fork the hash
 * chain nor count one act twice. A conditional write alone cannot do it on FerretDB 1.24,
 * which applies it as a read and a separate write. `decide` returns null when there is
 * nothing (left) to do. Returns the changed record and its entry, or null.
 */
export async function changeWithAudit(
  id: Types.ObjectId | string,
  filter: Record<string, unknown>,
  decide: (sig: SignatureRecord) => AuditedChange | null,
): Promise<{ sig: SignatureRecord; entry: AuditEntry } | null> {
  return exclusively(SIGNATURE_CHANGES, String(id), async () => {
    const sig = await Signature.findOne({ ...filter, _id: id });
    const change = sig && decide(sig);
    if (!sig || !change) return null;
    const trail = auditOf(sig);
    const entry = appendAudit(trail, change.entry);
    const fields = change.set?.(entry) ?? {};
    // The trail's length still guards the write: no change bypasses the claim, so it always
    // matches unless the filter stopped matching (the deadline passed), which is nothing to do.
    const updated = await Signature.findOneAndUpdate(
      { ...filter, _id: id, audit_trail: trusted({ $size: trail.length }) },
      { $set: { ...fields, ...spentTokens(sig, fields) }, $push: { audit_trail: entry } },
      { returnDocument: 'after' },
    );
    return updated ? { sig: updated, entry } : null;
  });
}
