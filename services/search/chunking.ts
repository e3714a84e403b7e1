/**
 * Splitting extracted text into overlapping retrieval chunks. Pure: the same pages always
 * give the same chunks, so chunk ids `<sourceId>:<index>` are stable across retries and
 * re-indexing never duplicates. A chunk never spans two pages (its citation names one
 * page) and carries the heading it falls under as its section.
 * One implementation, `Chunker`, takes pages in pieces and hands out each chunk as soon
 * as the text after it decides it, so a large file is chunked in memory bounded by a
 * chunk's look-ahead, not by the file; `chunkPages` feeds it whole pages.
 */

import type { Chunk } from '../../models/document';

export interface Page {
  /** 1-based page number. */
  page: number;
  text: string;
}

export interface ChunkOptions {
  /** Target chunk length in characters. */
  size: number;
  /** Characters shared by consecutive chunks of one page. */
  overlap: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { size: 1200, overlap: 200 };

/** Pages are joined with a blank line; chunk offsets refer to this text. */
export const PAGE_SEPARATOR = '\n\n';
export const fullText = (pages: readonly Page[]) => pages.map((p) => p.text).join(PAGE_SEPARATOR);

/** A piece of a page's text; pieces of one page come in order and carry its number. */
export interface TextPiece {
  page: number;
  text: string;
}

/** A heading line is at most this long once trimmed. */
const MAX_HEADING_LENGTH = 100;
const MARKDOWN_HEADING = /^#{1,6}\s+(.+)$/;
// After a bare number the title is capitalised: "12 Termination" is a heading, "24 months" is not.
const NUMBERED_HEADING = [
  /^(?:article|section|clause|schedule|annex|exhibit|part)\s+[\dIVXLC]+[.:)]?\s+\S.*$/i,
  /^\d+(?:\.\d+)*[.)]?\s+[\p{Lu}\d("“].*$/u,
];
const SENTENCE_END = /[.;,:]$/;

/** Words a title may have in lower case ("Limitation of Liability", "Term & Termination"). */
const TITLE_CONNECTORS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'of', 'on', 'or', 'the', 'to', 'with', '&']);
/** The run-in title of a clause: "Access and Use.  During the…" → "Access and Use". */
const RUN_IN_TITLE = /^((?:\d+(?:\.\d+)*\.?\s+)?[^.]{1,60}?)\.\s+(?=[\p{Lu}(“"])/u;

/**
 * The title a Word heading holding a whole clause starts with (DOCX extraction writes the
 * clause as a Markdown heading): a few words in title case before the first full stop, as in
 * "## Effect of Termination.  Upon any expiration…". A sentence ("## Customer will…") has none.
 */
export function runInTitle(text: string): string | null {
  const m = RUN_IN_TITLE.exec(text);
  if (!m) return null;
  const words = m[1]!
    .trim()
    .split(/\s+/)
    .filter((w) => !/^\d+(\.\d+)*\.?$/.test(w));
  const titleCase = words.length > 0 && words.length <= 6 && words.every((w) => /^[\p{Lu}“"(]/u.test(w) || TITLE_CONNECTORS.has(w));
  return titleCase ? m[1]!.trim() : null;
}

/**
 * A heading line: a Markdown heading (DOCX extraction writes them; one that holds a whole
 * clause is titled by its run-in title), a numbered or "Article 5"-style title, or a short
 * line in capitals. Sentences (ending in `.`, `;`, `,`) and long lines are body text.
 */
export function headingOf(line: string): string | null {
  const t = line.trim();
  if (!t) return null;
  const md = MARKDOWN_HEADING.exec(t);
  if (md) return runInTitle(md[1]!) ?? (md[1]!.length <= MAX_HEADING_LENGTH && !SENTENCE_END.test(md[1]!) ? md[1]!.trim() : null);
  if (t.length > MAX_HEADING_LENGTH) return null;
  if (SENTENCE_END.test(t) && !/^\d+(\.\d+)*\.$/.test(t)) return null;
  // A form's tick boxes ("[ x ] HIPAA", "(  ) Yes") are choices, not titles.
  if (/^[[(]/.test(t)) return null;
  if (NUMBERED_HEADING.some((re) => re.test(t)) && t.split(/\s+/).length <= 12) return t;
  const letters = t.replace(/[^A-Za-z]/g, '');
  if (letters.length >= 3 && letters === letters.toUpperCase() && t.split(/\s+/).length <= 10) return t;
  return null;
}

/** A long Markdown line's heading, from its first MAX_HEADING_LENGTH characters: only a run-in title. */
function longLineHeading(start: string): string | null {
  const md = MARKDOWN_HEADING.exec(start.trim());
  return md ? runInTitle(md[1]!) : null;
}

interface Heading {
  at: number;
  title: string;
}

/** The characters `\s` and `String.prototype.trim` treat as white space. */
function isSpace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Index of the first non-space character of `text[from, to)`, or -1. */
function firstNonSpace(text: string, from: number, to: number): number {
  for (let i = Math.max(from, 0); i < to; i++) if (!isSpace(text.charCodeAt(i))) return i;
  return -1;
}

/**
 * The last whitespace in `text[from, to)`, preferring the start of a clause (a Markdown line,
 * unless the line before ends with a colon: a list's items stay with what introduces them),
 * then a paragraph or sentence end.
 */
function breakPoint(text: string, from: number, to: number): number {
  const window = text.slice(from, to);
  for (const re of [/(?<!:[ \t]*)\n(?=#)/g, /\n\s*\n/g, /[.!?;]\s/g, /\s/g]) {
    let last = -1;
    for (const m of window.matchAll(re)) last = m.index + m[0].length;
    if (last > 0) return from + last;
  }
  return to;
}

/** Moves `[start, end)` inward past whitespace. */
function trimRange(text: string, start: number, end: number): [number, number] {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return [start, end];
}

/** The page being chunked. Offsets are into the page's text. */
interface OpenPage {
  page: number;
  /** The page's text from `from` on: what is not yet chunked, and the open line's content. */
  buf: string;
  from: number;
  /** Where the next chunk starts. */
  start: number;
  /** Headings of the page's ended lines: the last one before `start`, and all after. */
  headings: Heading[];
  /** The open (not yet ended) line: its first non-space character (-1: none yet), and whether it is too long to be a heading. */
  lineFirst: number;
  lineLong: boolean;
}

/**
 * Chunks pages given in pieces (`write`), in order. A chunk is handed out once the text
 * after it can no longer change it: `size` characters past its start are known, and no
 * line still open could be a heading inside it. Earlier text is dropped as it is chunked.
 */
export class Chunker {
  private open: OpenPage | null = null;
  private section = '';
  /** Offset of the open page in `fullText(pages)`. */
  private base = 0;
  /** Chunks made so far (the next chunk's index). */
  chunkCount = 0;
  /** Pages ended so far. */
  pageCount = 0;

  constructor(private readonly options: ChunkOptions = DEFAULT_CHUNKING) {
    if (options.overlap >= options.size) throw new Error('overlap must be smaller than size');
  }

  /** Appends `text` to page `page` (ending the open page first if it is another); returns the chunks now decided. */
  write(page: number, text: string): Chunk[] {
    const out: Chunk[] = [];
    if (this.open && this.open.page !== page) this.finishPage(out);
    this.open ??= { page, buf: '', from: 0, start: 0, headings: [], lineFirst: -1, lineLong: false };
    const p = this.open;
    const scanFrom = p.from + p.buf.length;
    p.buf += text;
    this.scanLines(p, scanFrom);
    this.chunkDecided(p, out, false);
    return out;
  }

  /** Ends the open page, if any; returns its remaining chunks. */
  endPage(): Chunk[] {
    const out: Chunk[] = [];
    if (this.open) this.finishPage(out);
    return out;
  }

  private finishPage(out: Chunk[]): void {
    const p = this.open!;
    const length = p.from + p.buf.length;
    this.endLine(p, length);
    this.chunkDecided(p, out, true);
    const last = p.headings.at(-1);
    if (last) this.section = last.title;
    this.base += length + PAGE_SEPARATOR.length;
    this.pageCount++;
    this.open = null;
  }

  /** Follows the lines of the text appended at `from`: headings of ended lines, the open line's state. */
  private scanLines(p: OpenPage, from: number): void {
    const end = p.from + p.buf.length;
    for (let i = from; i < end;) {
      const nl = p.buf.indexOf('\n', i - p.from);
      const lineEnd = nl < 0 ? end : p.from + nl;
      if (p.lineFirst < 0) {
        const first = firstNonSpace(p.buf, i - p.from, lineEnd - p.from);
        if (first >= 0) p.lineFirst = p.from + first;
      }
      // Text this far past its first character makes the trimmed line too long for a heading.
      if (p.lineFirst >= 0 && !p.lineLong) {
        p.lineLong = firstNonSpace(p.buf, Math.max(i, p.lineFirst + MAX_HEADING_LENGTH) - p.from, lineEnd - p.from) >= 0;
        const title = p.lineLong ? longLineHeading(p.buf.slice(p.lineFirst - p.from, p.lineFirst - p.from + MAX_HEADING_LENGTH)) : null;
        if (title) p.headings.push({ at: p.lineFirst, title });
      }
      if (nl < 0) break;
      this.endLine(p, lineEnd);
      i = lineEnd + 1;
    }
  }

  private endLine(p: OpenPage, at: number): void {
    if (p.lineFirst >= 0 && !p.lineLong) {
      const title = headingOf(p.buf.slice(p.lineFirst - p.from, at - p.from));
      if (title) p.headings.push({ at: p.lineFirst, title });
    }
    p.lineFirst = -1;
    p.lineLong = false;
  }

  /** Makes the chunks the known text decides (all of the page's once it has `ended`), then drops chunked text. */
  private chunkDecided(p: OpenPage, out: Chunk[], ended: boolean): void {
    const { size, overlap } = this.options;
    const length = p.from + p.buf.length;
    while (p.start < length) {
      const start = p.start;
      // Not ended: the text must run past this chunk's longest extent (so it does not end the
      // page), and the open line must not be a possible heading within that extent.
      if (!ended && (length <= start + size || (p.lineFirst >= 0 && !p.lineLong && p.lineFirst < start + size))) break;
      const t = p.buf;
      const o = p.from;
      let end = Math.min(start + size, length);
      // A heading after a reasonable amount of text starts the next chunk, so the
      // chunk's section is the heading its text really belongs to.
      const nextHeading = p.headings.find((h) => h.at > start + size / 3 && h.at < end);
      if (nextHeading) end = nextHeading.at;
      else if (end < length) end = o + breakPoint(t, start - o + Math.floor(size / 2), end - o);
      const [s, e] = trimRange(t, start - o, end - o);
      if (e > s) {
        const current = p.headings.filter((h) => h.at <= o + s).at(-1);
        if (current) this.section = current.title;
        out.push({
          index: this.chunkCount++,
          page: p.page,
          section: this.section,
          start: this.base + o + s,
          end: this.base + o + e,
          text: t.slice(s, e),
        });
      }
      if (end >= length) {
        p.start = length;
        break;
      }
      // Step back by the overlap, to a word boundary, but never behind a heading that
      // ended the chunk and always forward.
      let next = nextHeading ? end : Math.max(end - overlap, start + 1);
      if (!nextHeading) {
        const ws = t.slice(next - o, end - o).search(/\s/);
        if (ws >= 0) next += ws + 1;
      }
      p.start = next;
      // Every heading before the new start is behind every later chunk: only the last can be its section.
      while (p.headings.length > 1 && p.headings[1]!.at <= next) p.headings.shift();
    }
    const keep = p.lineFirst >= 0 && !p.lineLong ? Math.min(p.start, p.lineFirst) : p.start;
    if (keep > p.from) {
      p.buf = p.buf.slice(keep - p.from);
      p.from = keep;
    }
  }
}

/** The chunks of whole pages. */
export function chunkPages(pages: readonly Page[], options: ChunkOptions = DEFAULT_CHUNKING): Chunk[] {
  const chunker = new Chunker(options);
  const chunks: Chunk[] = [];
  for (const { page, text } of pages) {
    for (const c of chunker.write(page, text)) chunks.push(c);
    for (const c of chunker.endPage()) chunks.push(c);
  }
  return chunks;
}

/** Chunks of pages streamed in pieces, in batches of `size` (the last may be shorter) as soon as each is full. */
export async function* chunkBatches(pieces: AsyncIterable<TextPiece>, size: number, chunker = new Chunker()): AsyncGenerator<Chunk[]> {
  let batch: Chunk[] = [];
  const add = function* (chunks: Chunk[]) {
    for (const c of chunks) {
      batch.push(c);
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
  };
  for await (const { page, text } of pieces) yield* add(chunker.write(page, text));
  yield* add(chunker.endPage());
  if (batch.length) yield batch;
}
