/**
 * The local AI provider: deterministic and offline. Drafting fills the clause library,
 * analysis matches clause patterns sentence by sentence, answers are extractive (whole
 * sentences and clauses of the retrieved passages, each cited: platform/ai/extractive-answer.ts). Embeddings come from a local sentence
 * encoder, zero-padded to EMBEDDING_DIM (cosine similarity is unchanged by padding, so
 * the relevance floor keeps its meaning), or are feature-hashed when there is none.
 */
import { setImmediate } from 'node:timers/promises';
import {
  CONTRACT_TYPES,
  EMBEDDING_DIM,
  type AiPort,
  type ContractAnalysis,
  type ContractType,
  type DocumentAnalysis,
  type DraftRequest,
  type VendorAssessment,
  type VendorFacts,
} from './port';
import {
  CATEGORY_BY_ID,
  CLAUSE_CATEGORIES,
  COMPLIANCE_RULES,
  DEFAULT_EXPECTED,
  EXPECTED_CLAUSES,
  draftFromLibrary,
  type ClauseId,
} from './clauses';
import { hashEmbedding, HASHING_MODEL, normalize, words } from './embeddings';
import type { SentenceEncoder } from './sentence-encoder';
import { extractiveAnswer } from './extractive-answer';
import { riskLevel } from './risk';

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

export function analyze(input: { type: string; content: string }): ContractAnalysis {
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

const DATA_HEAVY = /\b(software|saas|cloud|hosting|data|it|payroll|hr|analytics|marketing|crm|payments?|health)\b/i;
const ADVERSE = /\b(breach|incident|late|delay(ed|s)?|bankrupt\w*|insolven\w*|lawsuit|litigation|default(ed)?|complaints?|outage)\b/gi;
const ASSURANCE = /\b(iso ?27001|soc ?2|pci[- ]dss|certified|audited)\b/i;

export function assessVendor(v: VendorFacts): VendorAssessment {
  let score = 10;
  const recommendations: string[] = [];
  const notes = v.notes ?? '';
  const adverse = [...new Set((notes.match(ADVERSE) ?? []).map((w) => w.toLowerCase()))];
  const assured = ASSURANCE.test(notes);
  const dataHeavy = DATA_HEAVY.test(`${v.category ?? ''} ${notes}`);

  let financial: string;
  if (adverse.length) {
    score += Math.min(30, 10 * adverse.length);
    financial = `Notes record adverse signals (${adverse.join(', ')}); stability is uncertain.`;
    recommendations.push('Request recent financial statements and references before renewing or expanding the relationship.');
  } else if (!v.website) {
    score += 10;
    financial = 'No website or public footprint on record; stability cannot be confirmed.';
    recommendations.push("Record the vendor's website and registration details and verify them.");
  } else {
    financial = 'No adverse signals on record.';
  }

  let dataHandling: string;
  if (dataHeavy && !assured) {
    score += 15;
    dataHandling = 'The vendor likely handles organizational or personal data and no security certification is on record.';
    recommendations.push('Obtain a SOC 2 Type II report or ISO 27001 certificate and sign a data processing agreement.');
  } else if (assured) {
    score = Math.max(0, score - 5);
    dataHandling = 'A security certification or audit is on record.';
  } else {
    dataHandling = "The vendor's category suggests limited access to sensitive data.";
  }

  let coverage: string;
  if (!v.contracts.length) {
    score += 25;
    coverage = 'No contract with this vendor is on record.';
    recommendations.push('Put a written agreement in place, starting with an NDA.');
  } else {
    const analyses = v.contracts.map((c) => analyze(c));
    const mean = Math.round(analyses.reduce((s, a) => s + a.risk_score, 0) / analyses.length);
    score += Math.round(mean * 0.4);
    const hasNda = v.contracts.some((c) => c.type === 'nda');
    const active = v.contracts.filter((c) => c.status === 'active').length;
    coverage = `${v.contracts.length} contract(s) on record (${active} active), mean contract risk ${mean}/100${hasNda ? ', NDA in place' : ', no NDA'}.`;
    if (!hasNda && dataHeavy) {
      score += 5;
      recommendations.push('Sign an NDA to cover information shared with the vendor.');
    }
    const gaps = [...new Set(analyses.flatMap((a) => a.analysis.missing_clauses))];
    if (gaps.length) recommendations.push(`Amend the contracts to add: ${gaps.join(', ')}.`);
  }

  const risk_score = Math.max(0, Math.min(100, score));
  if (!recommendations.length) recommendations.push('Review the vendor again at the next renewal.');
  return {
    risk_score,
    risk_level: riskLevel(risk_score),
    assessment: { financial_stability: financial, data_handling: dataHandling, contract_coverage: coverage, recommendations },
  };
}

const DOCUMENT_TYPES: ReadonlyArray<[string, RegExp]> = [
  ['nda', /\bnon-?disclosure\b|\bconfidential information\b/i],
  ['lease', /\blandlord\b|\btenant\b|\bpremises\b/i],
  ['employment', /\bemployer\b|\bemployee\b|\bemployment\b/i],
  ['consulting', /\bconsult(ant|ing)\b/i],
  ['service_agreement', /\bservices?\b[^.]{0,40}\b(agreement|statement of work)\b/i],
  ['policy', /\bpolicy\b/i],
];

export function analyzeDocument(input: { filename: string; text: string; pageCount: number }): DocumentAnalysis {
  const all = sentences(input.text);
  const summary = all.slice(0, 3).join(' ').slice(0, 600) || `${input.filename} contains no extractable text.`;
  const frequency = new Map<string, number>();
  for (const w of words(input.text)) if (w.length > 3 && !/^\d+$/.test(w)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const topWords = [...frequency]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 8)
    .map(([w]) => w);
  const clauses = [...findClauses(input.text).keys()].map((id) => CATEGORY_BY_ID.get(id)!.label);
  const documentType = DOCUMENT_TYPES.find(([, re]) => re.test(input.text))?.[0] ?? 'other';
  const contract = analyze({ type: documentType, content: input.text });
  return {
    summary,
    key_terms: [...clauses, ...topWords].slice(0, 15),
    risks: [
      ...contract.analysis.key_risks.map((r) => r.risk),
      ...contract.analysis.missing_clauses.map((c) => `Missing clause: ${c}`),
      ...contract.analysis.compliance_flags,
    ],
    document_type: documentType,
    page_count: input.pageCount,
  };
}

/** A model's vector as EMBEDDING_DIM unit-length values: zeros after its own dimensions. */
export function padded(vector: Float32Array): number[] {
  const out = new Array<number>(EMBEDDING_DIM).fill(0);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]!;
  return normalize(out);
}

export function createLocalAi(encoder: SentenceEncoder | null = null): AiPort {
  const ai: AiPort = {
    provider: 'local',
    models: {
      primary: 'local-extractive',
      mini: 'local-extractive',
      premium: 'local-extractive',
      fallback: 'local-extractive',
      embedding: encoder?.name ?? HASHING_MODEL,
    },

    draftContract(req: DraftRequest) {
      const type: ContractType = isContractType(req.type) ? req.type : 'service_agreement';
      const prompt = req.prompt ?? '';
      return Promise.resolve(
        draftFromLibrary(type, req.title, {
          party: req.partyName,
          counterparty: req.counterparty,
          purpose: purposeIn(prompt),
          term: req.term ?? termIn(prompt) ?? '2 years',
          law: req.governingLaw ?? lawIn(prompt) ?? 'the State of Delaware',
        }),
      );
    },

    analyzeContract(input) {
      return Promise.resolve(analyze(input));
    },

    assessVendor(input) {
      return Promise.resolve(assessVendor(input));
    },

    analyzeDocument(input) {
      return Promise.resolve(analyzeDocument(input));
    },

    async *generateAnswer({ question, context, signal, storedVectors }) {
      // Units are ranked by the sentence encoder when there is one (hashed vectors rank no better than shared words).
      // Stored vectors stand in for its own only when its model made them; the encoder embeds
      // a document's text and a query's alike, so a sentence's stored vector is the one it would make.
      const stored =
        storedVectors &&
        (async (passages: number) => {
          const { model, byText } = await storedVectors(passages);
          return model === ai.models.embedding ? byText : new Map<string, readonly number[]>();
        });
      const answer = await extractiveAnswer(question, context, encoder ? (texts) => ai.embed(texts, 'query') : undefined, stored);
      // Word-sized pieces, so streaming clients see the same shape as from a model; each
      // waits a turn of the event loop so a long answer never blocks other requests.
      for (const piece of answer.match(/\S+\s*/g) ?? []) {
        await setImmediate();
        if (signal?.aborted) return;
        yield piece;
      }
    },

    // No generative model offline: extraction stays with each feature's rules.
    extractStructured() {
      return Promise.resolve(null);
    },

    async embed(texts) {
      if (!encoder) return texts.map(hashEmbedding);
      return (await encoder.encode(texts)).map(padded);
    },
  };
  return ai;
}
