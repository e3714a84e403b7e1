/**
 * Retrieval benchmark (not part of the tests), on the real local engines:
 * 1. ingestion throughput in pages per second: a generated 200-page PDF through the
 *    ingestion steps (pdfjs extraction, chunking, embedding in batches of 100, bulk
 *    indexing into Elasticsearch);
 * 2. question-to-first-chunk latency of `POST /chat/send` (SSE) with 10,000 chunks
 *    indexed for the organization (and 2,000 for another one), p50/p95 over 40 questions.
 * Uses its own database and index prefix and removes them afterwards.
 *   source .stack/stack.env && npx tsx bench/retrieval.ts
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/logger';
import { closeServices, createServices } from '../lib/services';
import { createApp } from '../api/app';
import { chunkPages } from '../lib/chunking';
import { extractPages, MIME } from '../lib/extraction';
import { COLLECTIONS, embeddingText, indexChunks, indexName, refreshCollections, type ChunkRecord } from '../lib/vector-store';

const run = randomBytes(3).toString('hex');
const WORDS = ('agreement supplier customer invoice payment term termination notice liability indemnity confidential ' +
  'warranty insurance audit renewal price service level availability data breach subcontractor assignment law court ' +
  'deliverable license fee schedule harbour crane deposit escrow tenant landlord employee consultant milestone').split(' ');

function sentence(seed: number): string {
  const n = 12 + (seed % 9);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[(seed * 31 + i * 17 + ((seed >> 3) % 7) * i) % WORDS.length]!);
  return `${out.join(' ')}.`;
}

async function makeBenchPdf(pages: number): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage([612, 792]);
    page.drawText(`${p + 1}. Section ${p + 1}`, { x: 50, y: 750, size: 12, font });
    for (let l = 0; l < 40; l++) page.drawText(sentence(p * 40 + l).slice(0, 95), { x: 50, y: 730 - l * 17, size: 9, font });
  }
  return Buffer.from(await pdf.save());
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main() {
  const base = loadConfig();
  const mongo = new URL(base.MONGODB_URI);
  mongo.pathname = `/clm_bench_${run}`;
  const config = loadConfig({ ...process.env, MONGODB_URI: mongo.toString(), ELASTICSEARCH_INDEX_PREFIX: `bench_${run}_`, LOG_LEVEL: 'silent', RATE_LIMIT_DEFAULT_PER_MINUTE: '100000' });
  const s = await createServices(config, createLogger(config, 'bench'));
  const server = createApp(s).listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  try {
    // 1. Ingestion throughput.
    const PAGES = 200;
    const file = path.join(dir, 'bench.pdf');
    writeFileSync(file, await makeBenchPdf(PAGES));
    const t0 = performance.now();
    const pages = await extractPages(file, MIME.pdf);
    const t1 = performance.now();
    const chunks = chunkPages(pages);
    let embedMs = 0;
    let indexMs = 0;
    for (let i = 0; i < chunks.length; i += 100) {
      const batch = chunks.slice(i, i + 100);
      const e0 = performance.now();
      const vectors = await s.ai.embed(batch.map(embeddingText), 'document');
      const e1 = performance.now();
      await indexChunks(s, 'user_documents', batch.map((c, j) => ({
        organizationId: 'bench-ingest', sourceType: 'document', sourceId: 'bench-pdf', title: 'bench.pdf', page: c.page, section: c.section,
        startOffset: c.start, endOffset: c.end, text: c.text, chunkIndex: c.index, vector: vectors[j]!,
      })));
      embedMs += e1 - e0;
      indexMs += performance.now() - e1;
    }
    const r0 = performance.now();
    await refreshCollections(s, ['user_documents']);
    indexMs += performance.now() - r0;
    const total = performance.now() - t0;
    console.log(`ingestion: ${PAGES} pages, ${chunks.length} chunks in ${(total / 1000).toFixed(2)} s = ${(PAGES / (total / 1000)).toFixed(1)} pages/s ` +
      `(extract ${(t1 - t0).toFixed(0)} ms, embed ${embedMs.toFixed(0)} ms, index ${indexMs.toFixed(0)} ms; embedder ${s.ai.models.embedding})`);

    // 2. A user and 10,000 chunks of theirs (plus 2,000 of another organization).
    const reg = await fetch(`${baseUrl}/auth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench-${run}@example.test`, password: 'bench-password-1', full_name: 'Bench', organization_name: 'Bench' }),
    });
    const login = (await reg.json()) as { access_token: string; user: { organization_id: string } };
    const orgId = login.user.organization_id;
    const fill0 = performance.now();
    for (const [org, count] of [[orgId, 10_000], ['other-org', 2_000]] as const) {
      for (let i = 0; i < count; i += 500) {
        const texts = Array.from({ length: 500 }, (_, j) => `${sentence(i + j)} ${sentence(i + j + 7)} ${sentence(i + j + 13)}`);
        const vectors = await s.ai.embed(texts, 'document');
        const records: ChunkRecord[] = texts.map((text, j) => ({
          organizationId: org, sourceType: 'document', sourceId: `bench-src-${Math.floor((i + j) / 50)}`, title: `Bench document ${Math.floor((i + j) / 50)}`,
          page: 1 + ((i + j) % 50), section: '', startOffset: (i + j) * 10_000, endOffset: (i + j) * 10_000 + text.length, text, chunkIndex: i + j, vector: vectors[j]!,
        }));
        await indexChunks(s, COLLECTIONS[(i / 500) % 3]!, records);
      }
    }
    await refreshCollections(s);
    console.log(`filled 12,000 chunks in ${((performance.now() - fill0) / 1000).toFixed(1)} s`);

    // 3. Question to first SSE chunk.
    const questions = Array.from({ length: 40 }, (_, i) => `What does the ${WORDS[i % WORDS.length]} clause say about ${WORDS[(i * 7) % WORDS.length]} and ${WORDS[(i * 11) % WORDS.length]}?`);
    const firstChunk: number[] = [];
    const complete: number[] = [];
    let citations = 0;
    for (const message of questions) {
      const q0 = performance.now();
      const res = await fetch(`${baseUrl}/chat/send`, {
        method: 'POST', headers: { authorization: `Bearer ${login.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }),
      });
      const decoder = new TextDecoder();
      let text = '';
      let first: number | undefined;
      for await (const value of res.body! as AsyncIterable<Uint8Array>) {
        text += decoder.decode(value, { stream: true });
        if (first === undefined && text.includes('"type":"chunk"')) first = performance.now() - q0;
      }
      complete.push(performance.now() - q0);
      firstChunk.push(first ?? Number.NaN);
      citations += (/"type":"citations","sources":(\[.*?\])\}/.exec(text)?.[1]?.match(/"title"/g) ?? []).length;
    }
    console.log(`question to first chunk at 10,000 chunks: p50 ${percentile(firstChunk, 50).toFixed(1)} ms, p95 ${percentile(firstChunk, 95).toFixed(1)} ms; ` +
      `complete answer p50 ${percentile(complete, 50).toFixed(1)} ms; ${(citations / questions.length).toFixed(1)} citations per answer`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await new Promise((r) => server.close(r));
    for (const c of COLLECTIONS) await s.es.indices.delete({ index: indexName(s, c) }).catch(() => undefined);
    await mongoose.connection.db?.dropDatabase();
    await closeServices(s);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
