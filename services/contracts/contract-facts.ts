/**
 * The facts approval policies read of a contract, as one value: its type, value and currency,
 * counterparty, vendor and the vendor's risk, and its key terms, both as members corrected them
 * and as the text reads where a correction differs. An approval covers the facts it was given
 * (their SHA-256), and a change to any of them supersedes it (supersede-approvals.ts).
 * Reads stored records only: no extraction here (services/approvals/approval-gate.ts makes the terms current).
 */
import type { Types } from 'mongoose';
import { canonicalJson } from '../../platform/security/canonical-json';
import { sha256Hex } from '../../platform/security/crypto';
import { ContractTerms } from '../../models/contract-terms';
import { Vendor } from '../../models/vendor';
import { KEY_TERMS, type KeyTermName, type KeyTerms } from './key-terms.shared';

/** What a policy reads of one key term. */
export type TermFact = { value: string; normalized: unknown } | null;
export type TermFacts = Record<KeyTermName, TermFact>;

export interface ApprovalFacts {
  type: string;
  value: number | null;
  currency: string;
  counterparty: string;
  vendor: { id: string; name: string; risk: string | null } | null;
  /** The terms as the organization holds them, members' corrections included. */
  terms: TermFacts;
  /** For each key a member's correction changed: what the version's text reads. */
  text_reads: Partial<TermFacts>;
}

export interface ContractFactsSource {
  _id: Types.ObjectId;
  organization_id: Types.ObjectId;
  type: string;
  value?: number | null;
  currency?: string | null;
  counterparty: string;
  vendor_id?: Types.ObjectId | null;
}

export interface FactsRead {
  facts: ApprovalFacts;
  sha256: string;
  /** The version whose text the stored terms were extracted from (null: never extracted). */
  termsOfVersion: string | null;
}

const termFact = (t: KeyTerms[KeyTermName] | undefined): TermFact => (t ? { value: t.value, normalized: t.normalized ?? null } : null);

const termFacts = (terms: Partial<KeyTerms> | null | undefined): TermFacts =>
  Object.fromEntries(KEY_TERMS.map((k) => [k, termFact(terms?.[k])])) as TermFacts;

export const factsSha256 = (f: ApprovalFacts) => sha256Hex(canonicalJson(f));

/** The counterparty's vendor: the linked one, else the organization's vendor of that name. */
async function vendorOf(contract: ContractFactsSource): Promise<ApprovalFacts['vendor']> {
  const projection = { name: 1, risk_level: 1 };
  const vendor = contract.vendor_id
    ? await Vendor.findOne({ _id: contract.vendor_id, organization_id: contract.organization_id }, projection).lean()
    : await Vendor.findOne({ organization_id: contract.organization_id, name: contract.counterparty }, projection).lean();
  return vendor ? { id: vendor._id.toHexString(), name: vendor.name, risk: vendor.risk_level ?? null } : null;
}

/** The contract's facts as stored now. */
export async function readFacts(contract: ContractFactsSource): Promise<FactsRead> {
  const [stored, vendor] = await Promise.all([
    ContractTerms.findOne({ organization_id: contract.organization_id, contract_id: contract._id }).lean(),
    vendorOf(contract),
  ]);
  const terms = termFacts(stored?.terms as Partial<KeyTerms> | undefined);
  const extracted = stored?.extracted_terms ? termFacts(stored.extracted_terms as Partial<KeyTerms>) : terms;
  const text_reads: Partial<TermFacts> = {};
  for (const k of KEY_TERMS) if (canonicalJson(terms[k]) !== canonicalJson(extracted[k])) text_reads[k] = extracted[k];
  const facts: ApprovalFacts = {
    type: contract.type,
    value: contract.value ?? null,
    currency: contract.currency ?? 'USD',
    counterparty: contract.counterparty,
    vendor,
    terms,
    text_reads,
  };
  return { facts, sha256: factsSha256(facts), termsOfVersion: stored?.version_sha256 ?? null };
}

const shown = (t: TermFact) => (t ? `${t.value}${t.normalized !== null ? ` (${canonicalJson(t.normalized)})` : ''}` : 'not stated');

/** The facts for people, one line each: the sealed PDF's audit page prints them. */
export function describeFacts(f: ApprovalFacts): string[] {
  const terms = KEY_TERMS.filter((k) => f.terms[k] || k in f.text_reads).map((k) => {
    const text = f.text_reads[k];
    return `${k}: ${shown(f.terms[k])}${text !== undefined ? ` [corrected by a member; the text reads: ${shown(text)}]` : ''}`;
  });
  return [
    `type ${f.type}; value ${f.value === null ? 'none' : `${f.value} ${f.currency}`}; counterparty ${f.counterparty}; vendor ${
      f.vendor ? `${f.vendor.name} (risk ${f.vendor.risk ?? 'not assessed'})` : 'none'
    }`,
    `key terms: ${terms.length ? terms.join('; ') : 'none stated'}`,
  ];
}
