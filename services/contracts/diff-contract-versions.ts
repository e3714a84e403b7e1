/**
 * The redline between two versions of a contract: word-level changes by paragraph
 * (./redline.ts, run off the event loop), and a line per key term that differs between the
 * versions' terms ("liability cap: 12 months' fees → uncapped").
 */
import type { Engines } from '../../platform/engines';
import type { ContractDoc } from '../../models/contract';
import { findVersion, textOfVersion, textTruncated } from './contract-versions';
import { KEY_TERMS, type KeyTermName, type KeyTerms } from './key-terms.shared';
import { runRedline } from './redline-task';
import type { Redline } from './redline';

export interface ClauseChange {
  term: KeyTermName;
  from: string | null;
  to: string | null;
  summary: string;
}

/** How a term reads when a version's text does not state it. */
const ABSENT: Partial<Record<KeyTermName, string>> = { liability_cap: 'uncapped', auto_renewal: 'no automatic renewal' };
const label = (k: KeyTermName) => k.replace(/_/g, ' ');

/** Key terms whose value or meaning differs; null when either version's terms are not known yet. */
export function clauseChanges(a: KeyTerms | null, b: KeyTerms | null): ClauseChange[] | null {
  if (!a || !b) return null;
  const out: ClauseChange[] = [];
  for (const k of KEY_TERMS) {
    const x = a[k];
    const y = b[k];
    if (JSON.stringify(x?.normalized ?? null) === JSON.stringify(y?.normalized ?? null) && (x?.value ?? null) === (y?.value ?? null))
      continue;
    const from = x?.value ?? null;
    const to = y?.value ?? null;
    const shown = (v: string | null) => v ?? ABSENT[k] ?? 'not stated';
    out.push({ term: k, from, to, summary: `${label(k)}: ${shown(from)} → ${shown(to)}` });
  }
  return out;
}

export interface VersionDiff extends Redline {
  contract_id: string;
  from: { number: number; sha256: string; text_truncated: boolean };
  to: { number: number; sha256: string; text_truncated: boolean };
  /** Null while the key terms of either version are still being extracted. */
  clauses: ClauseChange[] | null;
}

export async function diffContractVersions(s: Engines, contract: ContractDoc, a: number, b: number): Promise<VersionDiff> {
  const [va, vb] = await Promise.all([findVersion(contract, a), findVersion(contract, b)]);
  const texts = await Promise.all([textOfVersion(s, va), textOfVersion(s, vb)]);
  const redline = await runRedline(s, { a: texts[0], b: texts[1] });
  return {
    contract_id: contract.id,
    from: { number: va.number, sha256: va.sha256, text_truncated: textTruncated(va) === true },
    to: { number: vb.number, sha256: vb.sha256, text_truncated: textTruncated(vb) === true },
    clauses: clauseChanges(va.terms as KeyTerms | null, vb.terms as KeyTerms | null),
    ...redline,
  };
}
