/**
 * Appending to an organization's identity audit log: the next row chains to the last one.
 * The insert is exclusive through the unique (organization, seq) index: of two appends that
 * read the same last row, one inserts and the other reads again and chains after it.
 */
import { Types } from 'mongoose';
import { isDuplicateKey } from '../../platform/mongo';
import { chainedHash, GENESIS_HASH } from '../../platform/security/hash-chain';
import { IdentityAudit, type AuditCategory } from '../../models/identity-audit';

export interface AuditInput {
  organizationId: string;
  category: AuditCategory;
  actor: { type: string; id: string | null; name: string | null };
  ip: string | null;
  user_agent: string | null;
  action: string;
  target: string | null;
  result: 'success' | 'failure';
  status: number;
}

type Row = Omit<AuditInput, 'organizationId'> & { organization_id: string; seq: number; at: Date; prev_hash: string };

/** The fields a row's hash covers, as plain JSON (dates as ISO strings, ids as hex). */
export const hashedFields = (r: Row) => ({
  organization_id: r.organization_id,
  seq: r.seq,
  at: r.at.toISOString(),
  category: r.category,
  actor: { type: r.actor.type, id: r.actor.id ?? null, name: r.actor.name ?? null },
  ip: r.ip,
  user_agent: r.user_agent,
  action: r.action,
  target: r.target,
  result: r.result,
  status: r.status,
  prev_hash: r.prev_hash,
});

const ATTEMPTS = 20;

export async function appendAudit(input: AuditInput): Promise<void> {
  const { organizationId, ...fields } = input;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const last = await IdentityAudit.findOne({ organization_id: organizationId }, { seq: 1, hash: 1 }).sort({ seq: -1 }).lean();
    const row: Row = {
      ...fields,
      organization_id: organizationId,
      seq: (last?.seq ?? -1) + 1,
      at: new Date(),
      prev_hash: last?.hash ?? GENESIS_HASH,
    };
    try {
      await IdentityAudit.create({ ...row, organization_id: new Types.ObjectId(organizationId), hash: chainedHash(hashedFields(row)) });
      return;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
  throw new Error('identity audit: too many concurrent appends');
}
