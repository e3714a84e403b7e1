/**
 * `node --import tsx eval/fit-retrieval.ts` (engines running, `source .stack/stack.env`): fits the
 * fusion of the lexical and the vector rankings (`Fusion` in
 * services/search/vector-store/search-chunks.ts) on the TUNING questions only. The eight
 * agreements are ingested once, as `npm run eval` does; each question is searched once and its
 * candidates fused under every setting of a grid; the setting with the best recall@5 (then MRR)
 * on eval/questions.json wins. Only then are the held-out questions scored, for the setting in use
 * (`FUSION`) and the one chosen, and for no other: the held-out part picks nothing.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startTestEnv, stopTestEnv, testEnv } from '../test/support/env';
import { signUp } from '../test/support/auth';
import { passagesOf, retrievalQuery, RETRIEVAL_OPTIONS } from '../services/search/retrieval';
import { FUSION, fuseCandidates, searchCandidates, type Candidates, type Fusion } from '../services/search/vector-store';
import { comparable, loadSet, type Question } from './corpus';
import { cacheEmbeddings } from './embedding-cache';
import { ingest } from './ingest';

const GRID = {
  rrfK: [10, 30, 60, 100],
  keywordWeight: [0, 0.25, 0.5, 0.75, 1, 1.5, 2],
  sentenceWeight: [0, 0.25, 0.5, 0.75, 1],
};

interface Searched {
  question: Question;
  candidates: Candidates;
}

/** recall@5 and MRR of one fusion over searched questions. */
function score(searched: readonly Searched[], fusion: Fusion): { recall: number; mrr: number } {
  const store = testEnv().services;
  let found = 0;
  let rr = 0;
  for (const { question, candidates } of searched) {
    const passages = passagesOf(fuseCandidates(store, candidates, RETRIEVAL_OPTIONS, fusion));
    const expected = comparable(question.passage);
    const rank = passages.findIndex((p) => comparable(p.text).includes(expected)) + 1;
    if (rank >= 1 && rank <= 5) found++;
    if (rank >= 1) rr += 1 / rank;
  }
  return { recall: found / searched.length, mrr: rr / searched.length };
}

const show = (f: Fusion, s: { recall: number; mrr: number }) =>
  `rrfK ${f.rrfK}, keyword ${f.keywordWeight}, sentence ${f.sentenceWeight}: recall@5 ${s.recall.toFixed(3)}, MRR ${s.mrr.toFixed(3)}`;

async function main(): Promise<void> {
  cacheEmbeddings(testEnv().services.ai, '.stack/eval-cache');
  const set = await loadSet();
  const user = await signUp({ organizationName: 'Retrieval fit' });
  await ingest(user, set.documents);
  const store = testEnv().services;
  const search = async (questions: readonly Question[]) => {
    const out: Searched[] = [];
    for (const question of questions) {
      const query = await retrievalQuery(store.ai, question.question);
      out.push({ question, candidates: await searchCandidates(store, user.organizationId, query, RETRIEVAL_OPTIONS) });
    }
    return out;
  };
  const tuning = await search(set.questions);
  const grid: Fusion[] = [FUSION];
  for (const rrfK of GRID.rrfK)
    for (const keywordWeight of GRID.keywordWeight)
      for (const sentenceWeight of GRID.sentenceWeight) grid.push({ rrfK, keywordWeight, sentenceWeight });
  const scored = grid.map((f) => ({ f, s: score(tuning, f) }));
  // Stable: among equals the first of the grid wins, and the setting in use comes first.
  const ranked = [...scored].sort((a, b) => b.s.recall - a.s.recall || b.s.mrr - a.s.mrr);
  console.log(`Tuning questions (${tuning.length}), embedding model ${store.ai.models.embedding}; best 10 of ${grid.length} settings:`);
  for (const { f, s } of ranked.slice(0, 10)) console.log(`  ${show(f, s)}`);
  console.log(`  in use: ${show(FUSION, scored[0]!.s)}`);
  const chosen = ranked[0]!.f;
  const heldOut = await search(set.heldOutQuestions);
  console.log(`Held-out questions (${heldOut.length}), scored after the choice:`);
  console.log(`  in use: ${show(FUSION, score(heldOut, FUSION))}`);
  console.log(`  chosen: ${show(chosen, score(heldOut, chosen))}`);
}

Runtime.install({ logger: new DefaultLogger('WARN') });
process.env.RATE_LIMIT_DEFAULT_PER_MINUTE ??= '100000';
startTestEnv()
  .then(main)
  .finally(stopTestEnv)
  .then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
