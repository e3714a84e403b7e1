/**
 * What the service knows of contracts without a generative model (the local AI provider
 * answers null for these tasks): drafting from the clause library, and analysis by matching
 * clause patterns sentence by sentence (clauses.ts).
 */
import type { ContractAnalysis, DraftRequest } from '../../platform/ai/port';
import { riskLevel } from '../clauses/risk-level';
import { CONTRACT_TYPES, type ContractType } from '../../models/contract';
import {
  CATEGORY_BY_ID,
  CLAUSE_CATEGORIES,
  COMPLIANCE_RULES,
  DEFAULT_EXPECTED,
  EXPECTED_CLAUSES,
  draftFromLibrary,
  type ClauseId,
} from './clauses';

const isContractType = (t: string): t is ContractType => (CONTRACT_TYPES as readonly string[]).includes(t);

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.;!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 2);
}

/** The first sentence that matches each clause category. */
export function findClauses(text: string): Map<ClauseId, string> {
  const found = new Map<ClauseId, string>();
  for (const sentence of sentences(text)) {
    for (const c of CLAUSE_CATEGORIES) {
      if (!found.has(c.id) && c.patterns.some((p) => p.test(sentence))) found.set(c.id, sentence.slice(0, 500));
    }
  }
  return found;
}

/** "2 years", "18 months" from free text, or undefined. */
function termIn(text: string): string | undefined {
  const m = /\b(\d{1,3}|one|two|three|four|five|six|ten)[\s-]*(year|month|week|day)s?\b/i.exec(text);
  if (!m) return undefined;
  const n = m[1]!.toLowerCase();
  const plural = n === '1' || n === 'one' ? '' : 's';
  return `${n} ${m[2]!.toLowerCase()}${plural}`;
}

/** "the laws of England and Wales" / "governed by California law" from free text. */
function lawIn(text: string): string | undefined {
  const m =
    /\blaws? of ((?:the )?[A-Z][\w]*(?: (?:of|and) [A-Z][\w]*| [A-Z][\w]*)*)/.exec(text) ??
    /\bgoverned by ([A-Z][\w]*(?: [A-Z][\w]*)*) law\b/.exec(text);
  return m?.[1];
}

/** The purpose in a prompt such as "NDA for evaluating a joint venture, 2 years". */
function purposeIn(prompt: string): string | undefined {
  const m = /\b(?:for|regarding|about|covering)\s+([^,.;\n]{6,160})/i.exec(prompt);
  const purpose = m?.[1]?.trim();
  return purpose && !termIn(purpose) ? purpose : undefined;
}

/** The risk of a contract by its clauses: the expected ones missing, the risky ones present, compliance gaps. */
export function analyzeByClauses(input: { type: string; content: string }): ContractAnalysis {
  const found = findClauses(input.content);
  const expected = isContractType(input.type) ? EXPECTED_CLAUSES[input.type] : DEFAULT_EXPECTED;
  let score = 0;

  const missing = expected.filter((id) => !found.has(id) && !(id === 'cap_on_liability' && found.has('uncapped_liability')));
  for (const id of missing) score += CATEGORY_BY_ID.get(id)!.missingWeight;

  const keyRisks: ContractAnalysis['analysis']['key_risks'] = [];
  for (const [id, text] of found) {
    const risk = CATEGORY_BY_ID.get(id)!.presentRisk;
    if (!risk) continue;
    score += risk.weight;
    keyRisks.push({ clause: text, risk: risk.risk, recommendation: risk.recommendation });
  }

  const flags: string[] = [];
  for (const rule of COMPLIANCE_RULES) {
    if (rule.when.test(input.content) && !found.has(rule.unless)) {
      score += rule.weight;
      flags.push(rule.flag);
    }
  }

  const risk_score = Math.min(100, score);
  return {
    risk_score,
    analysis: {
      risk_level: riskLevel(risk_score),
      key_risks: keyRisks,
      missing_clauses: missing.map((id) => CATEGORY_BY_ID.get(id)!.label),
      compliance_flags: flags,
    },
  };
}

/** A draft from the clause library, with the purpose, term and law the request or its prompt gives. */
export function draftByLibrary(req: DraftRequest): string {
  const type: ContractType = isContractType(req.type) ? req.type : 'service_agreement';
  const prompt = req.prompt ?? '';
  return draftFromLibrary(type, req.title, {
    party: req.partyName,
    counterparty: req.counterparty,
    purpose: purposeIn(prompt),
    term: req.term ?? termIn(prompt) ?? '2 years',
    law: req.governingLaw ?? lawIn(prompt) ?? 'the State of Delaware',
  });
}
