/**
 * What an uploaded file is (by its bytes, never its name) and its text, page by page.
 * PDF through pdfjs-dist (Mozilla's renderer, legacy build for Node), DOCX through
 * mammoth (headings become Markdown `#` lines, so chunking keeps them as sections),
 * TXT as UTF-8 with form feeds as page breaks.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import mammoth from 'mammoth';
import type { Page } from './chunking';

export const MIME = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  txt: 'text/plain',
} as const;
export type SupportedMime = (typeof MIME)[keyof typeof MIME];

/** The file cannot be turned into text (corrupt, encrypted, scanned without text). */
export class UnreadableDocumentError extends Error {}

/** Valid UTF-8 with no NUL byte: what a text file is; checked by streaming, not loading. */
async function isPlainText(path: string): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const piece of createReadStream(path) as AsyncIterable<Buffer>) {
      if (piece.includes(0)) return false;
      decoder.decode(piece, { stream: true });
    }
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/** The supported type the file's content shows, or null (a renamed binary is null). */
export async function detectFileType(path: string): Promise<SupportedMime | null> {
  const detected = await fileTypeFromFile(path);
  if (detected) {
    if (detected.mime === MIME.pdf) return MIME.pdf;
    if (detected.mime === MIME.docx) return MIME.docx;
    return null;
  }
  return (await isPlainText(path)) ? MIME.txt : null;
}

interface PdfTextItem {
  str: string;
  hasEOL: boolean;
  transform: number[];
}

async function pdfPages(path: string, onPage: (page: number, of: number) => void): Promise<Page[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const data = new Uint8Array(await readFile(path));
  let doc;
  try {
    doc = await pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, verbosity: 0 }).promise;
  } catch (err) {
    throw new UnreadableDocumentError(`not a readable PDF (${(err as Error).message})`);
  }
  try {
    const pages: Page[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      let lastY: number | undefined;
      for (const item of content.items as PdfTextItem[]) {
        if (!('str' in item)) continue;
        const y = item.transform[5];
        // A new baseline is a new line, even where the producer set no end-of-line flag.
        if (lastY !== undefined && y !== lastY && !text.endsWith('\n')) text += '\n';
        text += item.str;
        if (item.hasEOL) text += '\n';
        lastY = y;
      }
      pages.push({ page: n, text: text.trim() });
      page.cleanup();
      onPage(n, doc.numPages);
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** mammoth's HTML to text lines: headings as `# Title`, one line per paragraph or item. */
export function htmlToText(html: string): string {
  return html
    .replace(/<h([1-6])[^>]*>(.*?)<\/h\1>/gs, (_m, level: string, inner: string) => `\n${'#'.repeat(Number(level))} ${inner}\n`)
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<\/(p|li|tr|table)>/g, '\n')
    .replace(/<\/t[dh]>/g, '\t')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_m, e: string) => ENTITIES[e]!)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

async function docxPages(path: string): Promise<Page[]> {
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ path })).value;
  } catch (err) {
    throw new UnreadableDocumentError(`not a readable DOCX (${(err as Error).message})`);
  }
  // A DOCX has no fixed pages (they depend on the renderer): the whole text is page 1.
  return [{ page: 1, text: htmlToText(html) }];
}

async function txtPages(path: string): Promise<Page[]> {
  const text = (await readFile(path, 'utf8')).replace(/\r\n?/g, '\n');
  return text.split('\f').map((t, i) => ({ page: i + 1, text: t.trim() }));
}

/**
 * The text of each page. `onPage` reports progress on long PDFs (the ingestion activity
 * heartbeats with it). Throws UnreadableDocumentError when no text can be had.
 */
export async function extractPages(path: string, mime: SupportedMime, onPage: (page: number, of: number) => void = () => {}): Promise<Page[]> {
  const pages = mime === MIME.pdf ? await pdfPages(path, onPage) : mime === MIME.docx ? await docxPages(path) : await txtPages(path);
  if (!pages.some((p) => p.text.length > 0)) throw new UnreadableDocumentError('the file contains no extractable text');
  return pages;
}
