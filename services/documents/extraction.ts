/**
 * An uploaded file's text, page by page (what the file is: document-files.ts).
 * PDF through pdfjs-dist (Mozilla's renderer, legacy build for Node), DOCX through
 * mammoth (headings become Markdown `#` lines, so chunking keeps them as sections; pages
 * split at explicit page breaks), TXT as UTF-8 with form feeds as page breaks. Text comes
 * out as a stream of page pieces (`extractText`), so a large TXT is never held whole: a
 * PDF or DOCX page is one piece, a TXT is read in pieces of TXT_PIECE_BYTES.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import mammoth from 'mammoth';
import type { Page, TextPiece } from '../search/chunking';
import { ExtractionLimitError, MIME, UnreadableDocumentError, type SupportedMime } from './document-files';

interface PdfTextItem {
  str: string;
  hasEOL: boolean;
  transform: number[];
  width: number;
  height: number;
}

/** A horizontal gap on one baseline wider than this many font sizes parts two table cells. */
const CELL_GAP_EMS = 2;

/** Each page's text as it is read, then the page released (pdfjs keeps parsed pages otherwise). */
async function* pdfPieces(path: string, onPage: (page: number, of: number) => void, maxPages: number): AsyncGenerator<TextPiece> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const data = new Uint8Array(await readFile(path));
  let doc;
  try {
    doc = await pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, verbosity: 0 }).promise;
  } catch (err) {
    throw new UnreadableDocumentError(`not a readable PDF (${(err as Error).message})`);
  }
  try {
    if (doc.numPages > maxPages) throw new ExtractionLimitError(`the file has ${doc.numPages} pages, more than the ${maxPages} allowed`);
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      let lastY: number | undefined;
      let lastEnd = 0;
      let fontSize = 0;
      for (const item of content.items as PdfTextItem[]) {
        if (!('str' in item)) continue;
        const y = item.transform[5];
        const x = item.transform[4] ?? 0;
        // A new baseline is a new line, even where the producer set no end-of-line flag.
        if (lastY !== undefined && y !== lastY && !text.endsWith('\n')) text += '\n';
        // A wide gap on one baseline separates table cells ("Effective Date", then "March 1, 2026"
        // a column further): a tab keeps the row a row, as a DOCX table's cells are.
        const gap = item.str.trim() ? x - lastEnd : item.width;
        const wide = y === lastY && fontSize > 0 && gap > CELL_GAP_EMS * fontSize;
        if (wide && !item.str.trim()) {
          if (!text.endsWith('\t')) text += '\t';
        } else {
          if (wide && !/[\t\n]$/.test(text)) text += '\t';
          text += item.str;
        }
        if (item.hasEOL) text += '\n';
        lastY = y;
        lastEnd = x + item.width;
        if (item.str.trim()) fontSize = item.height || Math.abs(item.transform[0] ?? 0);
      }
      page.cleanup();
      onPage(n, doc.numPages);
      yield { page: n, text: text.trim() };
    }
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

/** Keeps explicit page breaks, which mammoth drops by default; `:fresh` keeps two in a row from merging into one. */
const PAGE_BREAK_STYLE = "br[type='page'] => hr.page-break:fresh";
/** What mammoth writes for one (document text is escaped, so text cannot forge it). */
const PAGE_BREAK_HTML = '<hr class="page-break" />';
/** Images are never read: mammoth would otherwise inline each one into the HTML as base64. */
const NO_IMAGES = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));

/**
 * mammoth's HTML cut into pages at explicit page breaks. A heading with a break inside
 * (Word keeps Ctrl+Enter in the paragraph it was typed in) is closed before the break and
 * reopened after it, so every page's part of it still becomes a `#` line.
 */
function docxPages(html: string): string[] {
  const headingsSplit = html.replace(
    /(<h([1-6])[^>]*>)(.*?)(<\/h\2>)/gs,
    (whole, open: string, _level: string, inner: string, close: string) =>
      inner.includes(PAGE_BREAK_HTML)
        ? inner
            .split(PAGE_BREAK_HTML)
            .map((part) => (part.replace(/<[^>]+>/g, '').trim() ? open + part + close : ''))
            .join(PAGE_BREAK_HTML)
        : whole,
  );
  return headingsSplit.split(PAGE_BREAK_HTML);
}

async function* docxPieces(path: string): AsyncGenerator<TextPiece> {
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ path }, { styleMap: [PAGE_BREAK_STYLE], convertImage: NO_IMAGES })).value;
  } catch (err) {
    throw new UnreadableDocumentError(`not a readable DOCX (${(err as Error).message})`);
  }
  // A DOCX's layout depends on the renderer: its pages are only where it marks them, by
  // explicit page breaks (none: the whole text is page 1). Word's <w:lastRenderedPageBreak/>
  // would mark more, but mammoth drops it while reading the XML. One trimmed piece per
  // page, as for a PDF, so the chunker ends a page where the page number changes.
  for (const [i, page] of docxPages(html).entries()) yield { page: i + 1, text: htmlToText(page) };
}

/** Bytes read per piece of a TXT file. */
export const TXT_PIECE_BYTES = 64 * 1024;

/** A TXT file's text in pieces: UTF-8 decoded across piece boundaries, line ends made `\n` (a `\r\n` split over two pieces too). */
async function* txtText(path: string, pieceBytes: number): AsyncGenerator<string> {
  // A BOM stays in the text, as in a whole-file read; trimming the page drops it.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const lineEnds = (text: string) => text.replace(/\r\n?/g, '\n');
  let cr = '';
  for await (const bytes of createReadStream(path, { highWaterMark: pieceBytes }) as AsyncIterable<Buffer>) {
    const text = cr + decoder.decode(bytes, { stream: true });
    // A trailing \r may be the first half of a \r\n.
    cr = text.endsWith('\r') ? '\r' : '';
    yield lineEnds(cr ? text.slice(0, -1) : text);
  }
  yield lineEnds(cr + decoder.decode());
}

/**
 * Text pieces split into pages at form feeds, each page trimmed as a whole: its leading
 * whitespace dropped, whitespace after its latest text held back until more text follows
 * it on the page, and dropped when the page ends. Every page yields at least one piece.
 */
async function* formFeedPages(texts: AsyncIterable<string>): AsyncGenerator<TextPiece> {
  let page = 1;
  let started = false;
  let held = '';
  yield { page, text: '' };
  for await (const text of texts) {
    for (const [i, part] of text.split('\f').entries()) {
      if (i > 0) {
        page++;
        started = false;
        held = '';
        yield { page, text: '' };
      }
      const rest = started ? part : part.trimStart();
      if (!rest) continue;
      started = true;
      const body = rest.trimEnd();
      if (body) {
        yield { page, text: held + body };
        held = rest.slice(body.length);
      } else {
        held += rest;
      }
    }
  }
}

/** A TXT file as trimmed pages in pieces (exported with its piece size for tests of piece boundaries). */
export const txtPieces = (path: string, pieceBytes = TXT_PIECE_BYTES) => formFeedPages(txtText(path, pieceBytes));

/**
 * The text of the file, page by page in pieces (each page's pieces in order, every page
 * at least one piece, each page trimmed). `onPage` reports progress on long PDFs (the
 * ingestion activity heartbeats with it). Throws UnreadableDocumentError when no text can
 * be had (after the last piece: the stream cannot know before), ExtractionLimitError for
 * a PDF of more than `maxPages` pages. Untrusted files are read through
 * services/documents/extract-text-in-child.ts, which runs this in a child process.
 */
export async function* extractText(
  path: string,
  mime: SupportedMime,
  onPage: (page: number, of: number) => void = () => {},
  maxPages = Infinity,
): AsyncGenerator<TextPiece> {
  const pieces = mime === MIME.pdf ? pdfPieces(path, onPage, maxPages) : mime === MIME.docx ? docxPieces(path) : txtPieces(path);
  let hasText = false;
  for await (const piece of pieces) {
    hasText ||= piece.text.length > 0;
    yield piece;
  }
  if (!hasText) throw new UnreadableDocumentError('the file contains no extractable text');
}

/** The whole text of each page (for callers that need it at once, e.g. analysis). */
export async function extractPages(path: string, mime: SupportedMime, onPage?: (page: number, of: number) => void): Promise<Page[]> {
  const pages: Page[] = [];
  for await (const { page, text } of extractText(path, mime, onPage)) {
    const last = pages.at(-1);
    if (last?.page === page) last.text += text;
    else pages.push({ page, text });
  }
  return pages;
}
