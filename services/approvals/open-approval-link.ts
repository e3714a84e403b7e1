/**
 * What an approver's personal link (./approval-link.ts) shows: while they may decide, the
 * review of the request (the contract's facts, its key terms beside the organization's
 * standard, the redline against the last approved or the previous version); else the state
 * of the request or link. Opening it changes nothing: a mail scanner or a prefetch that
 * follows the link decides nothing, and only a form post (./submit-approval-form.ts) does.
 */
import { Types, trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { Approval, type ApprovalRecord } from '../../models/approval';
import { ApprovalPolicy } from '../../models/approval-policy';
import { Contract, type ContractDoc } from '../../models/contract';
import { User, type UserDoc } from '../../models/user';
import { Organization } from '../../models/organization';
import { contractTerms } from '../contracts/contract-terms';
import { currentVersion, findVersion, textOfVersion } from '../contracts/contract-versions';
import { diffContractVersions, type VersionDiff } from '../contracts/diff-contract-versions';
import { KEY_TERMS, type KeyTermName } from '../contracts/key-terms.shared';
import { approverOfToken, checkApprovalLink } from './approval-link';
import { requirementsFor } from './approval-view';
import { libraryStandards } from '../clause-library/clause-library';
import { CLAUSE_LIBRARY, isStandard, type Conditions } from './policy-rules';
import { readFacts } from '../contracts/contract-facts';

type Group = ApprovalRecord['groups'][number];

/** A genuine link's request and approver, and the second factor a decision takes: a current code, none, or none possible before enrolling (the organization requires MFA). */
export interface ApprovalLink {
  approval: ApprovalRecord;
  user: UserDoc;
  mfa: 'code' | 'none' | 'enrol';
}

/** The approver as the decision use case sees them: a person, never an API key. */
export const approverPrincipal = (user: UserDoc): Principal => ({
  kind: 'user',
  id: user.id,
  userId: user.id,
  organizationId: user.organization_id.toHexString(),
  role: user.role,
  name: user.full_name,
});

/** The request and approver of a genuine link; 'expired' past its deadline; null for anything else (nothing says which). */
export async function resolveApprovalLink(s: Engines, approvalId: string, token: string): Promise<ApprovalLink | 'expired' | null> {
  const userId = approverOfToken(token);
  if (!userId || !Types.ObjectId.isValid(approvalId)) return null;
  // The link names the request; its MAC, checked below, binds the request's own organization and version.
  const approval = await Approval.findOne({ _id: new Types.ObjectId(approvalId) });
  const user = approval && (await User.findOne({ _id: new Types.ObjectId(userId), organization_id: approval.organization_id }));
  if (!approval || !user) return null;
  const subject = { approvalId: approval.id, userId: user.id, versionSha256: approval.version_sha256, sessionEpoch: user.session_epoch };
  const checked = checkApprovalLink(s.config, subject, token);
  if (checked !== 'valid') return checked === 'expired' ? 'expired' : null;
  if (user.mfa_enabled) return { approval, user, mfa: 'code' };
  const org = await Organization.findById(approval.organization_id, { mfa_required: 1 }).lean();
  return { approval, user, mfa: org?.mfa_required ? 'enrol' : 'none' };
}

/** A state in which the link cannot decide. */
export type ApprovalLinkState =
  | { kind: 'superseded' }
  | { kind: 'closed'; status: 'approved' | 'rejected' | 'overridden' }
  | { kind: 'decided'; decision: 'approved' | 'rejected' | 'removed'; at: Date; step: number; outcome: ApprovalRecord['status'] }
  | { kind: 'waiting'; step: number; active: number }
  | { kind: 'not_approver' };

export interface TermRow {
  term: KeyTermName;
  value: string | null;
  /** The organization's standards for the term (from its active policies), when any is set. */
  standards: string[];
  differs: boolean;
}

/** What the approver reviews before deciding. */
export interface ApprovalReview {
  approval: ApprovalRecord;
  approver: { name: string; mfa: ApprovalLink['mfa'] };
  step: number;
  reasons: string[];
  contract: Pick<ContractDoc, 'title' | 'type' | 'counterparty' | 'value' | 'currency' | 'start_date' | 'end_date'>;
  vendorRisk: string | null;
  terms: TermRow[];
  /** The redline from the base version, or the whole text of a first version. */
  changes: { base: 'approved' | 'previous'; diff: VersionDiff } | { base: null; text: string };
}

export type ApprovalLinkPage =
  | { kind: 'unknown' }
  | { kind: 'expired' }
  | { kind: 'state'; approval: ApprovalRecord; state: ApprovalLinkState }
  | { kind: 'form'; review: ApprovalReview };

async function stateOf(link: ApprovalLink): Promise<ApprovalLinkState | null> {
  const { approval: a, user } = link;
  const current = await currentVersion({ _id: a.contract_id });
  if (a.status === 'superseded' || (a.status === 'pending' && current && current.sha256 !== a.version_sha256))
    return { kind: 'superseded' };
  const me = { id: user.id, role: user.role };
  const mine = (g: Group) => g.decisions.find((d) => d.user_id.equals(user._id));
  // Their latest decision: on the open step, or on one the request has moved past or closed with.
  const own = a.groups.flatMap((g) => (mine(g) ? [{ g, d: mine(g)! }] : [])).at(-1);
  const decided = (o: NonNullable<typeof own>): ApprovalLinkState => ({
    kind: 'decided',
    decision: o.d.decision,
    at: o.d.at,
    step: o.g.step,
    outcome: a.status,
  });
  if (a.status !== 'pending') return own ? decided(own) : { kind: 'closed', status: a.status };
  const active = a.groups.find((g) => g.status === 'active');
  if (own && own.g === active) return decided(own);
  if (active && requirementsFor(a, active, me).length) return null;
  const later = a.groups.find((g) => g.status === 'pending' && requirementsFor(a, g, me).length);
  if (later && active) return { kind: 'waiting', step: later.step, active: active.step };
  return own ? decided(own) : { kind: 'not_approver' };
}

/** The key terms the contract states or the organization sets a standard for, each beside its standards. */
async function termRows(contract: ContractDoc): Promise<TermRow[]> {
  const [view, policies, library] = await Promise.all([
    contractTerms(contract),
    ApprovalPolicy.find({ organization_id: contract.organization_id, active: true }, { conditions: 1 }).lean(),
    libraryStandards(contract.organization_id),
  ]);
  const standards = new Map<KeyTermName, Set<string>>();
  for (const p of policies) {
    const given = (p.conditions as Conditions | null)?.terms_differ_from_standard;
    for (const [k, v] of Object.entries((given === CLAUSE_LIBRARY ? library : given) ?? {}))
      if (typeof v === 'string') standards.set(k as KeyTermName, (standards.get(k as KeyTermName) ?? new Set()).add(v));
  }
  return KEY_TERMS.flatMap((term) => {
    const t = view.terms[term];
    const std = [...(standards.get(term) ?? [])];
    if (!t && !std.length) return [];
    return [{ term, value: t?.value ?? null, standards: std, differs: std.some((x) => !isStandard(view.terms, term, x)) }];
  });
}

/** The redline against the last approved earlier version, else the previous one; a first version's whole text. */
async function changesOf(s: Engines, a: ApprovalRecord, contract: ContractDoc): Promise<ApprovalReview['changes']> {
  const approved = await Approval.findOne(
    {
      organization_id: a.organization_id,
      contract_id: a.contract_id,
      status: 'approved',
      version_number: trusted({ $lt: a.version_number }),
    },
    { version_number: 1 },
  )
    .sort({ version_number: -1 })
    .lean();
  const base = approved?.version_number ?? (a.version_number > 1 ? a.version_number - 1 : null);
  if (base !== null)
    return { base: approved ? 'approved' : 'previous', diff: await diffContractVersions(s, contract, base, a.version_number) };
  return { base: null, text: await textOfVersion(s, await findVersion(contract, a.version_number)) };
}

async function review(s: Engines, link: ApprovalLink): Promise<ApprovalReview | null> {
  const { approval: a, user } = link;
  const contract = await Contract.findOne({ _id: a.contract_id, organization_id: a.organization_id });
  if (!contract) return null;
  const group = a.groups.find((g) => g.status === 'active')!;
  const [read, terms, changes] = await Promise.all([readFacts(contract), termRows(contract), changesOf(s, a, contract)]);
  return {
    approval: a,
    approver: { name: user.full_name, mfa: link.mfa },
    step: group.step,
    reasons: group.requirements.flatMap((r) => r.reasons),
    contract,
    vendorRisk: read.facts.vendor?.risk ?? null,
    terms,
    changes,
  };
}

/** The link's page. Reads only: nothing a GET does counts as a decision. */
export async function openApprovalLink(s: Engines, approvalId: string, token: string): Promise<ApprovalLinkPage> {
  const link = await resolveApprovalLink(s, approvalId, token);
  if (link === 'expired') return { kind: 'expired' };
  if (!link) return { kind: 'unknown' };
  const state = await stateOf(link);
  if (state) return { kind: 'state', approval: link.approval, state };
  const r = await review(s, link);
  return r ? { kind: 'form', review: r } : { kind: 'unknown' };
}
