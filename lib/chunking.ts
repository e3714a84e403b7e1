/**
 * Splitting extracted text into overlapping retrieval chunks. Pure: the same pages always
 * give the same chunks, so chunk ids `<sourceId>:<index>` are stable across retries and
 * re-indexing never duplicates. A chunk never spans two pages (its citation names one
 * page) and carries the heading it falls under as its section.
 */

export interface Page {
  /** 1-based page number. */
  page: number;
  text: string;
}

export interface Chunk {
  index: number;
  page: number;
  section: string;
  /** Offsets into `fullText(pages)`; `text === fullText(pages).slice(start, end)`. */
  start: number;
  end: number;
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

const MARKDOWN_HEADING = /^#{1,6}\s+(.+)$/;
const NUMBERED_HEADING = /^(?:(?:article|section|clause|schedule|annex|exhibit|part)\s+[\dIVXLC]+[.:)]?|\d+(?:\.\d+)*[.)]?)\s+\S.*$/i;

/**
 * A heading line: a Markdown heading (DOCX extraction writes them), a numbered or
 * "Article 5"-style title, or a short line in capitals. Sentences (ending in `.`, `;`,
 * `,`) and long lines are body text.
 */
export function headingOf(line: string): string | null {
  const t = line.trim();
  if (!t || t.length > 100) return null;
  const md = MARKDOWN_HEADING.exec(t);
  if (md) return md[1]!.trim();
  if (/[.;,:]$/.test(t) && !/^\d+(\.\d+)*\.$/.test(t)) return null;
  if (NUMBERED_HEADING.test(t) && t.split(/\s+/).length <= 12) return t;
  const letters = t.replace(/[^A-Za-z]/g, '');
  if (letters.length >= 3 && letters === letters.toUpperCase() && t.split(/\s+/).length <= 10) return t;
  return null;
}

interface Heading {
  at: number;
  title: string;
}

function headingsOf(text: string): Heading[] {
  const out: Heading[] = [];
  let at = 0;
  for (const line of text.split('\n')) {
    const title = headingOf(line);
    if (title) out.push({ at: at + (line.length - line.trimStart().length), title });
    at += line.length + 1;
  }
  return out;
}

/** The last whitespace in `text[from, to)`, preferring a paragraph or sentence end. */
function breakPoint(text: string, from: number, to: number): number {
  const window = text.slice(from, to);
  for (const re of [/\n\s*\n/g, /[.!?;]\s/g, /\s/g]) {
    let last = -1;
    for (const m of window.matchAll(re)) last = m.index + m[0].length;
    if (last > 0) return from + last;
  }
  return to;
}

/** Moves `[start, end)` inward past whitespace. */
function trimRange(text: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return [start, end];
}

export function chunkPages(pages: readonly Page[], options: ChunkOptions = DEFAULT_CHUNKING): Chunk[] {
  if (options.overlap >= options.size) throw new Error('overlap must be smaller than size');
  const chunks: Chunk[] = [];
  let section = '';
  let base = 0;
  for (const { page, text } of pages) {
    const headings = headingsOf(text);
    let start = 0;
    while (start < text.length) {
      let end = Math.min(start + options.size, text.length);
      // A heading after a reasonable amount of text starts the next chunk, so the
      // chunk's section is the heading its text really belongs to.
      const nextHeading = headings.find((h) => h.at > start + options.size / 3 && h.at < end);
      if (nextHeading) end = nextHeading.at;
      else if (end < text.length) end = breakPoint(text, start + Math.floor(options.size / 2), end);
      const [s, e] = trimRange(text, start, end);
      if (e > s) {
        const current = headings.filter((h) => h.at <= s).at(-1);
        if (current) section = current.title;
        chunks.push({ index: chunks.length, page, section, start: base + s, end: base + e, text: text.slice(s, e) });
      }
      if (end >= text.length) break;
      // Step back by the overlap, to a word boundary, but never behind a heading that
      // ended the chunk and always forward.
      let next = nextHeading ? end : Math.max(end - options.overlap, start + 1);
      if (!nextHeading) {
        const ws = text.slice(next, end).search(/\s/);
        if (ws >= 0) next += ws + 1;
      }
      start = next;
    }
    const last = headings.at(-1);
    if (last) section = last.title;
    base += text.length + PAGE_SEPARATOR.length;
  }
  return chunks;
}
