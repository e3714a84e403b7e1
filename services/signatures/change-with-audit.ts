/**
 * The one way a signature request changes: with its audit entry, atomically, chained to
 * the trail as it stood (the trail's length is the record's version).
 */
import { trusted, type Types } from 'mongoose';
import { Signature, auditOf, type AuditEntry, type AuditEntryInput, type SignatureRecord } from '../../models/signature';
import { appendAudit } from './signature-evidence';

export interface AuditedChange {
  entry: AuditEntryInput;
  /** Fields to set with the entry; may depend on the entry's hash (the certificate does). */
  set?: (entry: AuditEntry) => Record<string, unknown>;
}

/**
 * Applies one change together with its audit entry, only while the request still matches
 * `filter` and nobody appended to the trail meanwhile: the trail's length is the record's
 * version, so concurrent acts (two signers, a reminder) never fork the hash chain or
 * overwrite each other. On a lost race it re-reads and `decide`s again; `decide` returns
 * null when there is nothing (left) to do. Returns the changed record and its entry, or null.
 */
/** The sealed tokens `fields` leave unusable: every one when the request closes, else those of signers who signed or declined. */
function spentTokens(sig: SignatureRecord, fields: Record<string, unknown>): Record<string, null> {
  const closes = typeof fields.status === 'string' && fields.status !== 'pending';
  const spent = sig.signers.flatMap((x, i) => {
    const next = fields[`signers.${i}.status`];
    return x.token_sealed && (closes || next === 'signed' || next === 'declined') ? [[`signers.${i}.token_sealed`, null] as const] : [];
  });
  return Object.fromEntries(spent);
}

export async function changeWithAudit(
  id: Types.ObjectId | string,
  filter: Record<string, unknown>,
  decide: (sig: SignatureRecord) => AuditedChange | null,
): Promise<{ sig: SignatureRecord; entry: AuditEntry } | null> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const sig = await Signature.findOne({ ...filter, _id: id });
    const change = sig && decide(sig);
    if (!sig || !change) return null;
    const trail = auditOf(sig);
    const entry = appendAudit(trail, change.entry);
    const fields = change.set?.(entry) ?? {};
    const updated = await Signature.findOneAndUpdate(
      { ...filter, _id: id, audit_trail: trusted({ $size: trail.length }) },
      { $set: { ...fields, ...spentTokens(sig, fields) }, $push: { audit_trail: entry } },
      { returnDocument: 'after' },
    );
    if (updated) return { sig: updated, entry };
  }
  throw new Error(`signature request ${String(id)}: too many concurrent changes`);
}
