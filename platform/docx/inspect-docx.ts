/**
 * A received Word file, read in a worker thread (platform/offload.ts): refused when it holds
 * macros or external relationships (./docx-package.ts) or is not a Word document, else its
 * text both ways and its tracked changes and comments (./read-docx.ts). An attached template
 * is cut off in the file itself, so the file kept and served again links to nothing. Its size was checked
 * before it got here (services/documents/check-expansion.ts), so loading it whole is bounded.
 */
import { readFile, writeFile } from 'node:fs/promises';
import JSZip from 'jszip';
import { dropAttachedTemplate, refusalOf } from './docx-package';
import { DocxFormatError, readDocx, type WordReading } from './read-docx';

export type Inspection =
  { ok: true; reading: WordReading } | { ok: false; refusal: { kind: 'macro' | 'external' | 'format'; detail: string } };

export async function inspectDocx(input: { path: string }): Promise<Inspection> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(await readFile(input.path));
  } catch (err) {
    return { ok: false, refusal: { kind: 'format', detail: `file: not a readable DOCX (${(err as Error).message})` } };
  }
  const refusal = await refusalOf(zip);
  if (refusal) return { ok: false, refusal };
  if (await dropAttachedTemplate(zip)) await writeFile(input.path, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  try {
    return { ok: true, reading: await readDocx(zip) };
  } catch (err) {
    if (err instanceof DocxFormatError) return { ok: false, refusal: { kind: 'format', detail: `file: ${err.message}` } };
    throw err;
  }
}
