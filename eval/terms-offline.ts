/**
 * `node --import tsx eval/terms-offline.ts <set> [--verbose]`: the key-term rules alone on one
 * labelled set, without the engines (text extracted as ingestion does, rules run in this
 * process, quotes checked verbatim): the quick loop for working on the rules. `<set>` is
 * corpus, heldout, unseen, written-tuning, written-heldout or written-heldout2; `npm run eval` reports all of
 * them through the API. Never run it on a held-out part while changing the rules.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectFileType } from '../services/documents/document-files';
import { extractPages } from '../services/documents/extraction';
import { keepVerbatim, readKeyTermsByRules } from '../services/contracts/extract-key-terms';
import { loadConfig } from '../platform/config';
import {
  CORPUS_DIR,
  filledFile,
  HELDOUT_DIR,
  loadSet,
  UNSEEN_DIR,
  WRITTEN_HELDOUT2_DIR,
  WRITTEN_HELDOUT_DIR,
  WRITTEN_TUNING_DIR,
} from './corpus';
import { perTermTable, scoreTerms, type ExtractedTerms } from './key-terms';

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'written-tuning';
  const set = await loadSet();
  const sets = {
    corpus: [set.documents, CORPUS_DIR],
    heldout: [set.heldOutDocuments, HELDOUT_DIR],
    unseen: [set.unseenDocuments, UNSEEN_DIR],
    'written-tuning': [set.writtenTuning, WRITTEN_TUNING_DIR],
    'written-heldout': [set.writtenHeldOut, WRITTEN_HELDOUT_DIR],
    'written-heldout2': [set.writtenHeldOut2, WRITTEN_HELDOUT2_DIR],
  } as const;
  const chosen = sets[name as keyof typeof sets];
  if (!chosen) throw new Error(`unknown set ${name}`);
  const [documents, dir] = chosen;
  const config = loadConfig({ NODE_ENV: 'test' });
  const limits = { maxTextChars: config.KEY_TERMS_MAX_TEXT_CHARS, maxLineChars: config.KEY_TERMS_MAX_LINE_CHARS, budgetMs: 60_000 };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'terms-offline-'));
  const results: Array<{ doc: (typeof documents)[number]; terms: ExtractedTerms | null }> = [];
  try {
    for (const doc of documents) {
      const file = path.join(tmp, doc.file);
      writeFileSync(file, await filledFile(doc, dir));
      const mime = await detectFileType(file);
      if (!mime) throw new Error(`${doc.file}: unsupported type`);
      const pages = await extractPages(file, mime);
      if (process.argv.includes('--text')) console.log(`==== ${doc.file}\n${pages.map((p) => p.text).join('\n---page---\n')}`);
      const answer = readKeyTermsByRules({ pages, limits });
      results.push({ doc, terms: keepVerbatim(answer.terms, pages) });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const score = scoreTerms(results);
  if (process.argv.includes('--verbose')) for (const m of score.mismatches) console.log(`  ${m}`);
  console.log(perTermTable(name, score));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
