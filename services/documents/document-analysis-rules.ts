/** A document's analysis without a generative model (the local AI provider answers null): its first sentences, clauses and frequent words. */
import type { DocumentAnalysis } from '../../platform/ai/port';
import { words } from '../../platform/ai/embeddings';
import { CATEGORY_BY_ID } from '../clauses/clauses';
import { analyzeByClauses, findClauses, sentences } from '../clauses/clause-rules';

const DOCUMENT_TYPES: ReadonlyArray<[string, RegExp]> = [
  ['nda', /\bnon-?disclosure\b|\bconfidential information\b/i],
  ['lease', /\blandlord\b|\btenant\b|\bpremises\b/i],
  ['employment', /\bemployer\b|\bemployee\b|\bemployment\b/i],
  ['consulting', /\bconsult(ant|ing)\b/i],
  ['service_agreement', /\bservices?\b[^.]{0,40}\b(agreement|statement of work)\b/i],
  ['policy', /\bpolicy\b/i],
];

export function analyzeDocumentByRules(input: { filename: string; text: string; pageCount: number }): DocumentAnalysis {
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
  const contract = analyzeByClauses({ type: documentType, content: input.text });
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
