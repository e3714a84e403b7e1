/**
 * The deviation check's labelled set and its precision and recall (`node --import tsx
 * eval/deviations.ts`). Built from the corpus agreements (eval/corpus, Common Paper, CC BY
 * 4.0) by changing clauses on purpose: per agreement and clause type found in it, the
 * library's preferred text is the agreement's own paragraph and its fallback a known edit of
 * it; four variants of the agreement are then judged for that type:
 * - unchanged: standard;
 * - the paragraph replaced by the fallback: fallback 1;
 * - the paragraph edited as a counterparty would (a number changed, a sentence dropped, a
 *   carve-out added): non-standard;
 * - the paragraph deleted: missing.
 * Positives are departures from the standard (fallback, non-standard, missing); a departure is
 * found when the check's verdict is not "standard", and named right when the verdict is the label.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import PizZip from 'pizzip';
import { docxParagraphs } from '../platform/docx/paragraphs';
import { openSentenceEncoder } from '../platform/ai/sentence-encoder';
import { candidatesOf, judgeDeviations, paragraphsOf, type LibraryClause } from '../services/deviations/deviation-rules';
import { libraryText } from '../services/clause-library/clause-positions';
import { CORPUS_DIR } from './corpus';

/** How to find each clause type's paragraph in an agreement. */
export const TYPE_PATTERNS: Record<string, RegExp> = {
  governing_law: /govern(ed|ing) (by )?(the )?law/i,
  liability_cap: /liabilit[a-z]* .*(exceed|cap|limit)/i,
  confidentiality: /confidential information/i,
  termination_for_convenience: /terminat[a-z]* .*(for any reason|convenience|without cause)|may terminate/i,
  payment_terms: /(invoice|pay[a-z]*) .*(days|within)/i,
  indemnity: /indemnif/i,
  data_protection: /personal data|data protection/i,
  assignment: /assign/i,
};

const sentences = (t: string) => t.match(/[^.!?]+[.!?]+/g) ?? [t];

/** The fallback the library allows: the first number doubled, or a notice period added. */
export function fallbackOf(text: string): string {
  if (/\b\d+\b/.test(text)) return text.replace(/\b(\d+)\b/, (_m, n: string) => String(Number(n) * 2));
  return `${text} Either party may extend this by thirty days on written notice.`;
}

/** A counterparty's edit the library does not allow: a carve-out added and its last sentence dropped (or changed). */
export function nonStandardOf(text: string): string {
  const s = sentences(text);
  const kept = s.length > 1 ? s.slice(0, -1).join('') : text.replace(/\b(shall|will|must)\b/, 'may');
  return `${kept.trim()} This does not apply to claims arising from the Provider's negligence.`;
}

type Label = 'standard' | 'fallback' | 'non_standard' | 'missing';

async function main() {
  const encoder = openSentenceEncoder(path.resolve(process.env.EMBEDDING_MODEL_DIR ?? '.stack/models/all-MiniLM-L6-v2'), {
    threads: 2,
    batchSize: 16,
  });
  if (!encoder) throw new Error('no local embedding model (scripts/stack.sh provision)');
  // Variants share all but one paragraph: each text is embedded once.
  const cache = new Map<string, number[]>();
  const embed = async (texts: string[]) => {
    const fresh = [...new Set(texts.filter((t) => !cache.has(t)))];
    if (fresh.length) (await encoder.encode(fresh)).forEach((v, i) => cache.set(fresh[i]!, Array.from(v)));
    return texts.map((t) => cache.get(t)!);
  };
  const cases: Array<{ file: string; type: string; label: Label; verdict: Label; similarity: number }> = [];
  for (const file of readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.docx'))) {
    const xml = new PizZip(readFileSync(path.join(CORPUS_DIR, file))).file('word/document.xml')!.asText();
    const paras = docxParagraphs(xml)
      .map((p) => p.text.trim())
      .filter(Boolean);
    const chosen = Object.entries(TYPE_PATTERNS).flatMap(([type, re]) => {
      const i = paras.findIndex((p) => p.length >= 80 && p.length <= 1500 && re.test(p));
      return i >= 0 ? [{ type, i }] : [];
    });
    // A paragraph two types would claim is kept for the first only.
    const used = new Set<number>();
    const clauses = chosen.filter((c) => (used.has(c.i) ? false : (used.add(c.i), true)));
    const library: LibraryClause[] = clauses.map((c) => ({
      type: c.type,
      title: c.type,
      version: 1,
      key_term: null,
      positions: [
        { text: paras[c.i]!, term_value: null },
        { text: fallbackOf(paras[c.i]!), term_value: null },
      ],
    }));
    const positionVectors = await Promise.all(library.map((l) => embed(l.positions.map((p) => libraryText(p)))));
    for (const [ci, c] of clauses.entries()) {
      const variants: Array<[Label, string[]]> = [
        ['standard', paras],
        ['fallback', paras.map((p, i) => (i === c.i ? fallbackOf(p) : p))],
        ['non_standard', paras.map((p, i) => (i === c.i ? nonStandardOf(p) : p))],
        ['missing', paras.filter((_p, i) => i !== c.i)],
      ];
      for (const [label, text] of variants) {
        const candidates = candidatesOf(paragraphsOf([{ page: 1, text: text.join('\n\n') }]));
        const report = judgeDeviations({
          candidates,
          candidateVectors: await embed(candidates.map((x) => x.text)),
          library: [library[ci]!],
          positionVectors: [positionVectors[ci]!],
          terms: {},
        });
        const found = report.clauses[0];
        const verdict: Label = !found ? 'missing' : found.status;
        cases.push({ file, type: c.type, label, verdict, similarity: found?.similarity ?? 0 });
      }
    }
  }
  const departures = cases.filter((c) => c.label !== 'standard');
  const flagged = cases.filter((c) => c.verdict !== 'standard');
  const truePos = cases.filter((c) => c.label !== 'standard' && c.verdict !== 'standard');
  const exact = cases.filter((c) => c.label === c.verdict);
  const labels: Label[] = ['standard', 'fallback', 'non_standard', 'missing'];
  console.log(
    `cases: ${cases.length} (${new Set(cases.map((c) => `${c.file}:${c.type}`)).size} clauses in ${new Set(cases.map((c) => c.file)).size} agreements)`,
  );
  console.log(
    `departure found: precision ${(truePos.length / flagged.length).toFixed(3)}, recall ${(truePos.length / departures.length).toFixed(3)}`,
  );
  for (const l of labels) {
    const tp = cases.filter((c) => c.label === l && c.verdict === l).length;
    const said = cases.filter((c) => c.verdict === l).length;
    const real = cases.filter((c) => c.label === l).length;
    console.log(`${l}: precision ${(tp / Math.max(said, 1)).toFixed(3)}, recall ${(tp / Math.max(real, 1)).toFixed(3)} (${real} labelled)`);
  }
  console.log(`verdict equals label: ${exact.length}/${cases.length}`);
  for (const l of labels) {
    const sims = cases
      .filter((c) => c.label === l)
      .map((c) => c.similarity)
      .sort((a, b) => a - b);
    console.log(
      `${l}: similarity of the closest paragraph min ${sims[0]}, median ${sims[Math.floor(sims.length / 2)]}, max ${sims.at(-1)}`,
    );
  }
  if (process.argv.includes('--verbose'))
    for (const c of cases.filter((x) => x.label !== x.verdict))
      console.log(`  ${c.file} ${c.type}: labelled ${c.label}, judged ${c.verdict}`);
}

if (require.main === module) void main();
