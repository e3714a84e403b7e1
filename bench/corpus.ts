/**
 * Real contract text for the benchmarks that embed: the evaluation set's eight filled Common
 * Paper agreements (eval/corpus.ts, CC BY 4.0), extracted and chunked as ingestion does, and
 * the evaluation's questions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkBatches } from '../services/search/chunking';
import { MIME } from '../services/documents/document-files';
import { extractText } from '../services/documents/extraction';
import { sentences } from '../services/clauses/clause-rules';
import { filledFile, loadSet } from '../eval/corpus';

export interface CorpusChunk {
  /** The uploaded file's name, which ingestion uses as the title. */
  title: string;
  section: string;
  text: string;
}

/** Every chunk of the evaluation corpus, and the evaluation's questions. */
export async function corpusChunks(): Promise<{ chunks: CorpusChunk[]; questions: string[] }> {
  const set = await loadSet();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-corpus-'));
  try {
    const chunks: CorpusChunk[] = [];
    for (const doc of set.documents) {
      const file = path.join(dir, doc.file);
      writeFileSync(file, await filledFile(doc));
      for await (const batch of chunkBatches(extractText(file, MIME.docx), 100))
        chunks.push(...batch.map((c) => ({ title: doc.file, section: c.section, text: c.text })));
    }
    return { chunks, questions: set.questions.map((q) => q.question) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Chunks composed of the corpus's sentences. */
export interface Composed {
  /** The corpus's distinct sentences. */
  sentences: string[];
  /** Per chunk, the indices of its sentences, in order. */
  members: number[][];
}

/**
 * `count` distinct chunks of real contract language, about a real chunk's length: the n-th
 * joins two runs of four consecutive corpus sentences, starting at places that differ for
 * every n below the number of sentences squared.
 */
export function composeChunks(chunks: readonly CorpusChunk[], count: number): Composed {
  const all = [...new Set(chunks.flatMap((c) => sentences(c.text)))];
  const run = (start: number) => [0, 1, 2, 3].map((k) => (start + k) % all.length);
  return {
    sentences: all,
    members: Array.from({ length: count }, (_, n) => [...run(n), ...run(Math.floor(n / all.length) * 7 + (n % all.length) * 13 + 1)]),
  };
}

/** A composed chunk's text: its sentences one per line, so the sentences search embeds (`sentencesOf`) are the corpus's. */
export const composedText = (c: Composed, n: number) => c.members[n]!.map((i) => c.sentences[i]).join('\n');
