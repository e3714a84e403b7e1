/**
 * Templates (issue 42): rendering 1,000 contracts from a template, and a deviation check of a
 * 50-page agreement with the default (local) embedding model.
 * - Render: docxtemplater filling a Word-written template (split runs, a repeating table row,
 *   sections, clauses) and reading its text, per contract; baseline: unzipping and zipping the
 *   template alone. The PDF of record (LibreOffice, one soffice per render) is timed on
 *   PDF_RUNS of them, the first with a fresh profile (the cold start), and given per contract.
 * - Deviations: a 50-page agreement made of the corpus agreements' paragraphs, judged against
 *   an 8-clause library; baseline: embedding its paragraphs alone.
 *   node --import tsx bench/templates.ts [renders] [pdf runs]
 * Needs no engine but LibreOffice and the provisioned model.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PizZip from 'pizzip';
import { docxParagraphs } from '../platform/docx/paragraphs';
import { docxToPdf } from '../platform/docx/pdf';
import { openSentenceEncoder } from '../platform/ai/sentence-encoder';
import { renderTemplate } from '../services/templates/render-template';
import { renderData, type VariableDef } from '../services/clause-library/variables';
import { candidatesOf, judgeDeviations, paragraphsOf, type LibraryClause } from '../services/deviations/deviation-rules';
import { libraryText } from '../services/clause-library/clause-positions';
import { wordDocx } from '../test/support/word-xml';
import { CORPUS_DIR } from '../eval/corpus';
import { fallbackOf, TYPE_PATTERNS } from '../eval/deviations';
import { writeResult, type BenchRow } from './report';

const RENDERS = Number(process.argv[2] ?? 1000);
const PDF_RUNS = Number(process.argv[3] ?? 5);
const PAGES = 50;

const VARS: VariableDef[] = [
  { name: 'client', type: 'party', label: 'Client', required: true },
  { name: 'fee', type: 'money', label: 'Fee', required: true },
  { name: 'start', type: 'date', label: 'Start', required: true },
  { name: 'renews', type: 'yes_no', label: 'Renews', required: true },
  {
    name: 'items',
    type: 'rows',
    label: 'Items',
    required: true,
    columns: [
      { name: 'service', label: 'Service', type: 'text' },
      { name: 'price', label: 'Price', type: 'money' },
    ],
  },
];
const clauseText = "Each party's total liability under this Agreement will not exceed the fees paid in the 12 months before the claim.";
const template = wordDocx([
  { p: ['MASTER SERVICES AGREEMENT'], style: 'Heading1' },
  {
    p: [
      'This Agreement starts on {{start}} between ',
      { text: '{{cli', bold: true },
      { text: 'ent.name}}', bold: true },
      ' of {{client.address}}.',
    ],
  },
  { p: ['The Client pays ', { text: '{{fee}}', italic: true }, ' per month.'] },
  {
    table: [
      [['Service'], ['Price']],
      [['{{#items}}{{service}}'], ['{{price}}{{/items}}']],
    ],
  },
  { p: ['{{#renews}}It renews automatically.{{/renews}}'] },
  { p: ['{{clause.liability_cap}}'] },
  ...Array.from({ length: 40 }, (_, i) => ({
    p: [
      `${i + 1}. The Provider will perform the Services with reasonable skill and care, in line with good industry practice and the Documentation.`,
    ],
  })),
]);
const values = (i: number) => ({
  client: { name: `Client ${i} Ltd`, address: `${i} Harbour Road` },
  fee: { amount: 1000 + i, currency: 'USD' },
  start: '2026-03-01',
  renews: i % 2 === 0,
  items: Array.from({ length: 5 }, (_, j) => ({ service: `Service ${j}`, price: { amount: 100 * j, currency: 'USD' } })),
});

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

async function renders(): Promise<BenchRow[]> {
  let t = performance.now();
  for (let i = 0; i < RENDERS; i++) new PizZip(template).generate({ type: 'nodebuffer', compression: 'DEFLATE' });
  const base = performance.now() - t;
  const each: number[] = [];
  let last: Buffer = template;
  t = performance.now();
  for (let i = 0; i < RENDERS; i++) {
    const s = performance.now();
    last = renderTemplate(new PizZip(template), { ...renderData(VARS, values(i)), clause: { liability_cap: clauseText } }).docx;
    each.push(performance.now() - s);
  }
  const total = performance.now() - t;
  const config = { SOFFICE_PATH: process.env.SOFFICE_PATH ?? 'soffice', PDF_RENDER_TIMEOUT_MS: 120_000, PDF_RENDER_CONCURRENCY: 1 };
  // A fresh profile: the first conversion pays LibreOffice's cold start.
  rmSync(path.join(tmpdir(), `clm-soffice-${process.pid}-0`), { recursive: true, force: true });
  const pdf: number[] = [];
  for (let i = 0; i < PDF_RUNS; i++) {
    const s = performance.now();
    await docxToPdf(last, config);
    pdf.push(performance.now() - s);
  }
  const warm = pdf.slice(1);
  return [
    {
      name: `render ${RENDERS} contracts from a template (DOCX + text)`,
      baseline: `${base.toFixed(0)} ms (unzip + zip)`,
      measured: `${total.toFixed(0)} ms; p50 ${pct(each, 50).toFixed(1)} ms, p95 ${pct(each, 95).toFixed(1)} ms each`,
      ratio: total / base,
      target: 'reported',
      met: null,
    },
    {
      name: `PDF of record by LibreOffice (${PDF_RUNS} runs, one soffice each)`,
      baseline: `cold (new profile) ${pdf[0]!.toFixed(0)} ms`,
      measured: warm.length
        ? `warm p50 ${pct(warm, 50).toFixed(0)} ms; 1,000 at 2 at once ≈ ${((pct(warm, 50) * RENDERS) / 2 / 1000).toFixed(0)} s`
        : '-',
      ratio: warm.length ? pct(warm, 50) / pdf[0]! : NaN,
      target: 'reported',
      met: null,
    },
  ];
}

async function deviations(): Promise<BenchRow[]> {
  const encoder = openSentenceEncoder(path.resolve(process.env.EMBEDDING_MODEL_DIR ?? '.stack/models/all-MiniLM-L6-v2'), {
    threads: 2,
    batchSize: 8,
  });
  if (!encoder) throw new Error('no local embedding model (scripts/stack.sh provision)');
  const paras = readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.docx'))
    .flatMap((f) =>
      docxParagraphs(new PizZip(readFileSync(path.join(CORPUS_DIR, f))).file('word/document.xml')!.asText()).map((p) => p.text.trim()),
    )
    .filter((t) => t.length > 40);
  // About 500 words a page: paragraphs of the corpus, repeated as needed.
  const pages = Array.from({ length: PAGES }, (_, n) => {
    const out: string[] = [];
    for (let i = n * 8, words = 0; words < 500; i++) {
      const p = paras[i % paras.length]!;
      out.push(p);
      words += p.split(/\s+/).length;
    }
    return { page: n + 1, text: out.join('\n\n') };
  });
  const library: LibraryClause[] = Object.entries(TYPE_PATTERNS).map(([type, re]) => {
    const text = paras.find((p) => re.test(p) && p.length > 80) ?? clauseText;
    return {
      type,
      title: type,
      version: 1,
      key_term: null,
      positions: [
        { text, term_value: null },
        { text: fallbackOf(text), term_value: null },
      ],
    };
  });
  const embed = async (texts: string[]) => (await encoder.encode(texts)).map((v) => Array.from(v));
  await embed(['warm up']);
  const candidates = candidatesOf(paragraphsOf(pages));
  let t = performance.now();
  await embed(candidates.map((c) => c.text));
  const base = performance.now() - t;
  t = performance.now();
  const candidateVectors = await embed(candidates.map((c) => c.text));
  const positionVectors = await Promise.all(library.map((c) => embed(c.positions.map((p) => libraryText(p)))));
  const report = judgeDeviations({ candidates, candidateVectors, library, positionVectors, terms: {} });
  const total = performance.now() - t;
  return [
    {
      name: `deviation check, ${PAGES}-page agreement (${candidates.length} paragraphs), ${library.length} clause types, ${encoder.name}`,
      baseline: `${base.toFixed(0)} ms (embedding its paragraphs)`,
      measured: `${total.toFixed(0)} ms (${report.clauses.length} found, ${report.missing.length} missing)`,
      ratio: total / base,
      target: 'reported',
      met: null,
    },
  ];
}

async function main() {
  writeResult('templates', [...(await renders()), ...(await deviations())]);
}

void main();
