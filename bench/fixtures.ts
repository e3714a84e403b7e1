/**
 * Generated contract-like text for the benchmarks: deterministic sentences from a small
 * legal vocabulary, a many-page PDF (pdf-lib) and a large TXT file written in pieces.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { PDFDocument, StandardFonts } from 'pdf-lib';

export const WORDS = (
  'agreement supplier customer invoice payment term termination notice liability indemnity confidential ' +
  'warranty insurance audit renewal price service level availability data breach subcontractor assignment law court ' +
  'deliverable license fee schedule harbour crane deposit escrow tenant landlord employee consultant milestone'
).split(' ');

/** The n-th sentence: 12 to 20 words, the same for the same n. */
export function sentence(n: number): string {
  const count = 12 + (n % 9);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[(n * 31 + i * 17 + ((n >> 3) % 7) * i) % WORDS.length]!);
  return `${out.join(' ')}.`;
}

/** A PDF of `pages` letter pages, each a numbered section heading and 40 lines of text. */
export async function makePdf(pages: number): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage([612, 792]);
    page.drawText(`${p + 1}. Section ${p + 1}`, { x: 50, y: 750, size: 12, font });
    for (let l = 0; l < 40; l++) page.drawText(sentence(p * 40 + l).slice(0, 95), { x: 50, y: 730 - l * 17, size: 9, font });
  }
  return Buffer.from(await pdf.save());
}

/**
 * A plain-text file of exactly `bytes` bytes: numbered clauses of ten sentences each,
 * written a clause at a time so the generator itself stays small.
 */
export async function writeTextFile(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  let written = 0;
  for (let clause = 1; written < bytes; clause++) {
    const body = Array.from({ length: 10 }, (_, i) => sentence(clause * 10 + i)).join(' ');
    const piece = `${clause}. Clause ${clause}\n${body}\n\n`.slice(0, bytes - written);
    written += Buffer.byteLength(piece);
    if (!out.write(piece)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
