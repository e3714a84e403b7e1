/**
 * A contract's key terms as stored: extraction from its text of record (the latest ready
 * document of category `contract` attached to it, else the contract's own content), merged so
 * that a confirmed term is never overwritten (what the text reads is kept beside it, and approval
 * policies read both); members' confirmations and corrections; and the
 * opt-out deadline derived from the terms (end date minus the non-renewal notice, for
 * auto-renewing contracts), which the renewal workflow reminds about.
 */
import { trusted, Types } from 'mongoose';
import { isDuplicateKey } from '../../platform/mongo';
import type { Engines } from '../../platform/engines';
import type { Page } from '../search/chunking';
import type { SupportedMime } from '../documents/document-files';
import { Contract, type ContractDoc } from '../../models/contract';
import { Document } from '../../models/document';
import { ContractTerms, type ContractTermsDoc } from '../../models/contract-terms';
import { extractTextInChild } from '../documents/extract-text-in-child';
import { findKeyTerms } from './find-key-terms';
import { currentVersion, recordVersionTerms } from './contract-versions';
import { refuseChangeWhileSigning } from './pending-signature';
import { supersedeApprovalsOfOtherFacts } from './supersede-approvals';
import { canonicalJson } from '../../platform/security/canonical-json';
import { emptyTerms, KEY_TERMS, type KeyTerm, type KeyTermName, type KeyTerms, type NullReasons } from './key-terms.shared';
import { fillFromSignature, type AwaitingSignature } from './term-dates';

const DAY_MS = 86_400_000;

export interface TermsView {
  contract_id: string;
  extracted_at: string | null;
  terms: KeyTerms;
  /** The last extraction did not read every key, or not the whole text. */
  partial: boolean;
  /** Keys the last extraction did not get to within its time budget (each keeps its earlier term, if any). */
  unread_keys: KeyTermName[];
  /** The text of record was longer than the rules read (KEY_TERMS_MAX_TEXT_CHARS). */
  text_truncated: boolean;
  /** End date minus the non-renewal notice, for a contract that renews automatically: what the renewal reminders count down to. */
  opt_out_deadline: string | null;
  /** Why a key, or the opt-out deadline, is null though the text speaks of it. */
  null_reasons: NullReasons;
}

export const termsView = (contractId: string, doc: ContractTermsDoc | null): TermsView => {
  const unread = (doc?.unread_keys ?? []) as KeyTermName[];
  const truncated = doc?.text_truncated ?? false;
  return {
    contract_id: contractId,
    extracted_at: doc?.extracted_at?.toISOString() ?? null,
    terms: { ...emptyTerms(), ...((doc?.terms as Partial<KeyTerms> | undefined) ?? {}) },
    partial: unread.length > 0 || truncated,
    unread_keys: unread,
    text_truncated: truncated,
    opt_out_deadline: doc?.opt_out_deadline ?? null,
    null_reasons: (doc?.null_reasons as NullReasons | undefined) ?? {},
  };
};

/** The text extraction reads: the attached contract document's pages, or the contract's content as page 1. */
async function textOfRecord(s: Engines, contract: ContractDoc): Promise<{ pages: Page[]; source: string }> {
  const doc = await Document.findOne({
    organization_id: contract.organization_id,
    contract_id: contract._id,
    category: 'contract',
    status: 'ready',
  }).sort({ processed_at: -1 });
  if (doc) {
    const pages: Page[] = [];
    for await (const { page, text } of extractTextInChild(doc.storage_path, doc.mime_type as SupportedMime, s.config)) {
      const last = pages.at(-1);
      if (last?.page === page) last.text += text;
      else pages.push({ page, text });
    }
    return { pages, source: `document:${doc.id}` };
  }
  return { pages: [{ page: 1, text: contract.content ?? '' }], source: 'contract' };
}

/** The end date the terms give: stated, else the contract's, else the effective date plus the term. */
export function endDateOf(terms: KeyTerms, contract: Pick<ContractDoc, 'end_date' | 'start_date'>): string | null {
  const stated = terms.end_date?.normalized;
  if (typeof stated === 'string') return stated;
  if (contract.end_date) return contract.end_date.toISOString().slice(0, 10);
  const start =
    typeof terms.effective_date?.normalized === 'string'
      ? terms.effective_date.normalized
      : contract.start_date?.toISOString().slice(0, 10);
  const length = terms.term_length?.normalized;
  if (!start || typeof length !== 'number') return null;
  return new Date(Date.parse(`${start}T00:00:00Z`) + length * DAY_MS).toISOString().slice(0, 10);
}

/** End date minus the non-renewal notice period, for a contract that renews automatically; else null. */
export function optOutDeadline(terms: KeyTerms, contract: Pick<ContractDoc, 'end_date' | 'start_date'>): string | null {
  return optOut(terms, contract).deadline;
}

/** The opt-out deadline, or why an auto-renewing contract has none. */
function optOut(terms: KeyTerms, contract: Pick<ContractDoc, 'end_date' | 'start_date'>): { deadline: string | null; reason?: string } {
  if (terms.auto_renewal?.normalized !== true) return { deadline: null };
  const end = endDateOf(terms, contract);
  const notice = terms.non_renewal_notice_days?.normalized;
  if (!end) return { deadline: null, reason: 'the contract renews automatically, but its end date is not known' };
  if (typeof notice !== 'number')
    return { deadline: null, reason: 'the contract renews automatically, but no notice period for non-renewal is stated' };
  return { deadline: new Date(Date.parse(`${end}T00:00:00Z`) - notice * DAY_MS).toISOString().slice(0, 10) };
}

/** The reasons that still hold for the terms as stored: none for a key that has a term. */
function reasonsFor(terms: KeyTerms, reasons: NullReasons, contract: Pick<ContractDoc, 'end_date' | 'start_date'>): NullReasons {
  const out: NullReasons = Object.fromEntries(Object.entries(reasons).filter(([k]) => !terms[k as KeyTermName]));
  const { reason } = optOut(terms, contract);
  if (reason) out.opt_out_deadline = reason;
  return out;
}

/**
 * A start that is the last signature, undated in the text, dated by the contract's signing here
 * (`signed_at`, set when its signature request completed).
 */
function signedHere(
  terms: KeyTerms,
  reasons: NullReasons,
  awaiting: AwaitingSignature | null,
  contract: Pick<ContractDoc, 'signed_at'>,
): { terms: KeyTerms; reasons: NullReasons } {
  if (!awaiting || !contract.signed_at) return { terms, reasons };
  return fillFromSignature(terms, reasons, awaiting, contract.signed_at.toISOString().slice(0, 10));
}

/** Confirmed terms of `stored` win over `fresh` ones; a key left unread keeps its stored term. */
function merge(stored: Partial<KeyTerms> | undefined, fresh: KeyTerms, unread: readonly KeyTermName[]): KeyTerms {
  const out = emptyTerms();
  for (const k of KEY_TERMS) {
    const kept = stored?.[k];
    out[k] = kept?.confirmed || unread.includes(k) ? (kept ?? null) : fresh[k];
  }
  return out;
}

/** Writes terms and the deadline they give; returns the record. */
async function save(
  organizationId: Types.ObjectId,
  contract: ContractDoc,
  terms: KeyTerms,
  extra: {
    extracted_at?: Date;
    source?: string;
    unread_keys?: KeyTermName[];
    text_truncated?: boolean;
    extracted_terms?: KeyTerms;
    version_sha256?: string | null;
    reasons?: NullReasons;
  },
): Promise<ContractTermsDoc> {
  const { reasons, ...fields } = extra;
  // A member's correction keeps the reasons of the last extraction that still hold.
  const set = {
    terms,
    opt_out_deadline: optOutDeadline(terms, contract),
    ...fields,
    null_reasons: reasonsFor(terms, reasons ?? {}, contract),
  };
  const write = () =>
    ContractTerms.findOneAndUpdate(
      { organization_id: organizationId, contract_id: contract._id },
      { $set: set },
      { upsert: true, returnDocument: 'after' },
    );
  let doc;
  try {
    doc = await write();
  } catch (err) {
    // Two first extractions racing both insert; the loser's retry updates the winner's record.
    // (With the rules off the event loop, concurrent extractions really do overlap now.)
    if (!isDuplicateKey(err)) throw err;
    doc = await write();
  }
  await recordVersionTerms(contract, terms);
  // Terms are facts approvals cover: requests judged on other terms stop counting.
  await supersedeApprovalsOfOtherFacts(contract);
  return doc;
}

/** Extracts the contract's key terms again (the provider's way) and stores them, keeping confirmed ones. */
export async function extractContractTerms(s: Engines, organizationId: string, contractId: string): Promise<TermsView | null> {
  const contract = await Contract.findOne({ _id: contractId, organization_id: organizationId });
  if (!contract) return null;
  // The version is read before its text: an edit meanwhile leaves the terms marked as of the older one.
  const version = await currentVersion(contract);
  const { pages, source } = await textOfRecord(s, contract);
  const fresh = await findKeyTerms(s, pages);
  const stored = await ContractTerms.findOne({ organization_id: contract.organization_id, contract_id: contract._id });
  const signed = signedHere(fresh.terms, fresh.reasons, fresh.awaitingSignature, contract);
  const terms = merge(stored?.terms as Partial<KeyTerms> | undefined, signed.terms, fresh.unread);
  const read = { ...signed.terms };
  for (const k of fresh.unread) read[k] = (stored?.extracted_terms as Partial<KeyTerms> | null | undefined)?.[k] ?? null;
  const doc = await save(contract.organization_id, contract, terms, {
    extracted_at: new Date(),
    source,
    unread_keys: fresh.unread,
    text_truncated: fresh.truncated,
    extracted_terms: read,
    version_sha256: version?.sha256 ?? null,
    reasons: signed.reasons,
  });
  return termsView(contract.id, doc);
}

/** A member's corrections: each given term replaces the stored one (confirmed unless said otherwise); null clears it. */
export async function correctContractTerms(
  contract: ContractDoc,
  changes: Partial<Record<KeyTermName, Partial<KeyTerm> | null>>,
): Promise<TermsView> {
  const stored = await ContractTerms.findOne({ organization_id: contract.organization_id, contract_id: contract._id });
  const terms = { ...emptyTerms(), ...((stored?.terms as Partial<KeyTerms> | undefined) ?? {}) };
  for (const [k, change] of Object.entries(changes) as Array<[KeyTermName, Partial<KeyTerm> | null | undefined]>) {
    if (change === undefined) continue;
    if (change === null) {
      terms[k] = null;
      continue;
    }
    const base = terms[k];
    const value = change.value ?? base?.value;
    if (value === undefined) continue;
    terms[k] = {
      value,
      normalized: change.normalized !== undefined ? change.normalized : (base?.normalized ?? null),
      quote: change.quote ?? base?.quote ?? value,
      page: change.page ?? base?.page ?? 1,
      confidence: change.value !== undefined || change.normalized !== undefined ? 1 : (base?.confidence ?? 1),
      confirmed: change.confirmed ?? true,
    };
  }
  // What a policy reads changes: not while a signature request signs the contract as judged.
  const said = (t: KeyTerm | null | undefined) => canonicalJson(t ? [t.value, t.normalized] : null);
  const before = { ...emptyTerms(), ...((stored?.terms as Partial<KeyTerms> | undefined) ?? {}) };
  await refuseChangeWhileSigning(
    contract,
    KEY_TERMS.filter((k) => said(before[k]) !== said(terms[k])).map((k) => `terms.${k}`),
  );
  // A key a member has set or cleared is no longer unread.
  const unread = ((stored?.unread_keys ?? []) as KeyTermName[]).filter((k) => changes[k] === undefined);
  const reasons = (stored?.null_reasons as NullReasons | undefined) ?? {};
  return termsView(contract.id, await save(contract.organization_id, contract, terms, { unread_keys: unread, reasons }));
}

export async function contractTerms(contract: ContractDoc): Promise<TermsView> {
  return termsView(contract.id, await ContractTerms.findOne({ organization_id: contract.organization_id, contract_id: contract._id }));
}

/** The organization's auto-renewing contracts whose opt-out deadline falls within the next `withinDays` days (today included), soonest first. */
export async function upcomingRenewals(organizationId: string, withinDays: number, now = new Date()) {
  const today = now.toISOString().slice(0, 10);
  const until = new Date(Date.parse(`${today}T00:00:00Z`) + withinDays * DAY_MS).toISOString().slice(0, 10);
  const rows = await ContractTerms.find({
    organization_id: new Types.ObjectId(organizationId),
    opt_out_deadline: trusted({ $gte: today, $lte: until }),
  });
  const due = rows.sort((a, b) => a.opt_out_deadline!.localeCompare(b.opt_out_deadline!));
  const contracts = new Map(
    (await Contract.find({ _id: trusted({ $in: due.map((r) => r.contract_id) }), organization_id: organizationId })).map((c) => [c.id, c]),
  );
  return due.flatMap((r) => {
    const c = contracts.get(r.contract_id.toHexString());
    if (!c) return [];
    const terms = termsView(c.id, r).terms;
    return [
      {
        contract_id: c.id,
        title: c.title,
        counterparty: c.counterparty,
        end_date: endDateOf(terms, c),
        non_renewal_notice_days: terms.non_renewal_notice_days?.normalized ?? null,
        opt_out_deadline: r.opt_out_deadline!,
        days_left: Math.round((Date.parse(`${r.opt_out_deadline!}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS),
      },
    ];
  });
}
