/**
 * The organization's clause library: one clause per type, each change a new version kept as
 * it was (a contract names the version and position it used). The version number is taken by
 * inserting the ClauseVersion (its unique index makes two concurrent saves take different
 * numbers: FerretDB's conditional updates are not exclusive, its unique indexes are).
 */
import { Types } from 'mongoose';
import { findOwned } from '../../platform/find-owned';
import type { Principal } from '../../platform/security/principal';
import { badRequest, notFound } from '../../platform/errors';
import { isDuplicateKey } from '../../platform/mongo';
import { ApprovalPolicy } from '../../models/approval-policy';
import { Clause, ClauseVersion, type ClauseDoc } from '../../models/clause';
import type { KeyTermName } from '../contracts/key-terms.shared';
import { KNOWN_CLAUSE_TYPES, positionsOf, type ClauseBody, type Position } from './clause-positions';

const ATTEMPTS = 8;

async function checkPolicies(organizationId: string, c: ClauseBody) {
  const named = c.fallbacks.map((f, i) => [i, f.approval_policy_id] as const).filter(([, id]) => id);
  for (const [i, id] of named) {
    if (!(await ApprovalPolicy.exists({ _id: new Types.ObjectId(id!), organization_id: new Types.ObjectId(organizationId) })))
      throw badRequest(`fallbacks.${i}.approval_policy_id: no such approval policy`, 'validation_failed');
  }
}

/** Stores the clause of its type: the first version, or the next one. Answers whether it was new. */
export async function saveClause(p: Principal, body: ClauseBody): Promise<{ clause: ClauseDoc; created: boolean }> {
  await checkPolicies(p.organizationId, body);
  const org = new Types.ObjectId(p.organizationId);
  const key_term = body.key_term !== undefined ? body.key_term : (KNOWN_CLAUSE_TYPES[body.type] ?? null);
  const positions = positionsOf(body);
  for (let attempt = 1; ; attempt++) {
    const existing = await Clause.findOne({ organization_id: org, type: body.type });
    const clauseId = existing?._id ?? new Types.ObjectId();
    const last = await ClauseVersion.findOne({ clause_id: clauseId }, { version: 1 }).sort({ version: -1 }).lean();
    const version = (last?.version ?? 0) + 1;
    try {
      await ClauseVersion.create({
        organization_id: org,
        clause_id: clauseId,
        type: body.type,
        version,
        title: body.title,
        key_term,
        positions,
      });
    } catch (err) {
      if (isDuplicateKey(err) && attempt < ATTEMPTS) continue;
      throw err;
    }
    if (existing) {
      existing.set({ title: body.title, key_term, positions, version });
      await existing.save();
      return { clause: existing, created: false };
    }
    try {
      const clause = await Clause.create({
        _id: clauseId,
        organization_id: org,
        type: body.type,
        title: body.title,
        key_term,
        version,
        positions,
        created_by: new Types.ObjectId(p.userId),
      });
      return { clause, created: true };
    } catch (err) {
      // Another first save of the type won: this one becomes its next version.
      await ClauseVersion.deleteOne({ clause_id: clauseId, version });
      if (!isDuplicateKey(err) || attempt >= ATTEMPTS) throw err;
    }
  }
}

/** A clause of the caller's organization. */
export const getClause = (p: Principal, id: unknown) => findOwned(Clause, p, id, 'Clause');

export const listClauses = (organizationId: string) =>
  Clause.find({ organization_id: new Types.ObjectId(organizationId) }).sort({ type: 1 });

export async function clauseOfType(organizationId: Types.ObjectId | string, type: string): Promise<ClauseDoc> {
  const c = await Clause.findOne({ organization_id: new Types.ObjectId(organizationId), type });
  if (!c) throw notFound('Clause');
  return c;
}

/** The clause types the organization's library holds. */
export async function libraryTypes(organizationId: Types.ObjectId | string): Promise<string[]> {
  const rows = await Clause.find({ organization_id: new Types.ObjectId(organizationId) }, { type: 1 }).lean();
  return rows.map((r) => r.type);
}

/** The organization's standard for each key term: the term value of the preferred position of the clause stating it. */
export async function libraryStandards(organizationId: Types.ObjectId | string): Promise<Partial<Record<KeyTermName, string>>> {
  const rows = await Clause.find({ organization_id: new Types.ObjectId(organizationId) }, { key_term: 1, positions: 1 }).lean();
  const out: Partial<Record<KeyTermName, string>> = {};
  for (const r of rows) {
    const preferred = (r.positions as Position[])[0];
    if (r.key_term && preferred?.term_value) out[r.key_term as KeyTermName] = preferred.term_value;
  }
  return out;
}

export function clauseView(c: ClauseDoc) {
  const positions = c.positions as unknown as Position[];
  const view = (pos: Position) => ({
    text: pos.text,
    variables: pos.variables ?? [],
    term_value: pos.term_value ?? null,
    needs_approval: pos.needs_approval,
    approval_policy_id: pos.approval_policy_id ? String(pos.approval_policy_id) : null,
  });
  return {
    id: c.id,
    type: c.type,
    title: c.title,
    key_term: c.key_term ?? null,
    version: c.version,
    preferred: view(positions[0]!),
    fallbacks: positions.slice(1).map(view),
    updated_at: c.get('updated_at') as Date,
  };
}
