/**
 * A Word file's text as Word shows it, both ways a reviewer can settle its tracked changes:
 * accepted (what the counterparty proposes) and rejected (what they were sent), with each
 * insertion and deletion and its author and date, and the comments with the text they mark.
 *
 * Reads what Word really writes: runs split anywhere (rsids, spell-check marks), text inside
 * hyperlinks, content controls, smart tags and simple fields (`w:fldSimple`, whose cached
 * result is the text), complex fields (the `w:instrText` code is skipped, the result kept),
 * automatic numbering (numbering.xml, the label computed as Word shows it: "1.1", "(a)"),
 * headings (as `#` lines, the text convention of the service), and tables (a row is a line,
 * its cells parted by tabs). A tracked deletion of a paragraph mark joins the paragraph to the
 * next, as Word does on "accept all"; an inserted mark, on "reject all".
 *
 * Pure (package in, data out), run in a worker thread by ./inspect-docx.ts.
 */
import { createRequire } from 'node:module';
import type JSZip from 'jszip';
import { W_NS } from './ooxml';

export type ChangeOp = 'insert' | 'delete';

export interface TrackedChange {
  op: ChangeOp;
  text: string;
  author: string | null;
  date: string | null;
  /** 0-based paragraph of the accepted text (of the rejected text for a deletion). */
  paragraph: number;
}

export interface WordComment {
  /** Word's number of the comment (its `w:id`). */
  number: number;
  author: string | null;
  date: string | null;
  text: string;
  /** The accepted text the comment is anchored on ('' when it marks a point). */
  anchor: string;
}

export interface WordReading {
  accepted: string;
  rejected: string;
  changes: TrackedChange[];
  comments: WordComment[];
}

interface Segment {
  op: 'equal' | ChangeOp;
  text: string;
  author: string | null;
  date: string | null;
  /** Comments open where this text sits. */
  comments: string[];
}

interface Para {
  heading: number;
  num: { numId: string; ilvl: number } | null;
  segments: Segment[];
  /** A tracked change of the paragraph mark itself. */
  mark: ChangeOp | null;
}

/** The little of the W3C DOM the reader uses. */
interface El {
  nodeType: number;
  namespaceURI: string | null;
  localName: string | null;
  textContent: string | null;
  firstChild: El | null;
  nextSibling: El | null;
  getAttributeNS(ns: string, name: string): string | null;
}
interface XmlDocument {
  documentElement: El | null;
}
interface XmlParser {
  parseFromString(xml: string, type: string): XmlDocument;
}
/**
 * @xmldom/xmldom, loaded without its type declarations: they pull the browser's DOM library
 * into the whole program (`/// <reference lib="dom" />`), which retypes Node's fetch and Blob.
 */
const { DOMParser } = createRequire(__filename)('@xmldom/xmldom') as {
  DOMParser: new (options: { errorHandler: Record<'warning' | 'error' | 'fatalError', (m: unknown) => void> }) => XmlParser;
};

const children = (el: El): El[] => {
  const out: El[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n);
  return out;
};
const isW = (el: El, name: string) => el.namespaceURI === W_NS && el.localName === name;
const child = (el: El | null | undefined, name: string): El | null => (el ? (children(el).find((c) => isW(c, name)) ?? null) : null);
const attr = (el: El | null | undefined, name: string): string | null => (el ? el.getAttributeNS(W_NS, name) || null : null);

/** The package is not a Word document this reader can read; the message says why, for a person. */
export class DocxFormatError extends Error {
  override readonly name = 'DocxFormatError';
}

/** XML with a DOCTYPE is refused: OOXML parts never have one, and entity tricks start there. */
function parseXml(xml: string, part: string): XmlDocument & { documentElement: El } {
  if (/<!DOCTYPE/i.test(xml)) throw new DocxFormatError(`${part} declares a DOCTYPE`);
  const errors: string[] = [];
  const report = (m: unknown) => errors.push(String(m));
  const doc = new DOMParser({
    // xmldom 0.8 reports a mismatched or unclosed tag as a mere warning: any report is a refusal.
    errorHandler: { warning: report, error: report, fatalError: report },
  }).parseFromString(xml, 'application/xml');
  const root = doc.documentElement;
  if (errors.length || !root) throw new DocxFormatError(`${part} is not well-formed XML`);
  return { documentElement: root };
}

async function partXml(zip: JSZip, name: string): Promise<{ documentElement: El } | null> {
  const file = zip.file(name);
  return file ? parseXml(await file.async('string'), name) : null;
}

// ---- Styles and numbering -------------------------------------------------------------

interface StyleInfo {
  heading: number;
  num: { numId: string; ilvl: number } | null;
  basedOn: string | null;
}

function readStyles(doc: { documentElement: El } | null): Map<string, StyleInfo> {
  const styles = new Map<string, StyleInfo>();
  if (!doc) return styles;
  for (const s of children(doc.documentElement)) {
    if (!isW(s, 'style') || attr(s, 'type') !== 'paragraph') continue;
    const id = attr(s, 'styleId');
    if (!id) continue;
    const name = (attr(child(s, 'name'), 'val') ?? '').toLowerCase();
    const level = /^heading (\d)$/.exec(name)?.[1] ?? /^heading(\d)$/i.exec(id)?.[1];
    const numPr = child(child(s, 'pPr'), 'numPr');
    styles.set(id, {
      heading: level ? Number(level) : name === 'title' ? 1 : 0,
      num: numPr ? { numId: attr(child(numPr, 'numId'), 'val') ?? '0', ilvl: Number(attr(child(numPr, 'ilvl'), 'val') ?? 0) } : null,
      basedOn: attr(child(s, 'basedOn'), 'val'),
    });
  }
  return styles;
}

/** A style's heading level and numbering, following `basedOn` (bounded: styles may loop). */
function styleOf(styles: Map<string, StyleInfo>, id: string | null): Omit<StyleInfo, 'basedOn'> {
  let heading = 0;
  let num: StyleInfo['num'] = null;
  for (let i = 0, s = id ? styles.get(id) : undefined; s && i < 10; i++, s = s.basedOn ? styles.get(s.basedOn) : undefined) {
    heading ||= s.heading;
    num ??= s.num;
  }
  return { heading, num };
}

interface Level {
  start: number;
  format: string;
  text: string;
}

interface Numbering {
  /** numId → abstractNumId, with its start overrides by level. */
  nums: Map<string, { abstract: string; starts: Map<number, number> }>;
  abstracts: Map<string, Map<number, Level>>;
}

function readNumbering(doc: { documentElement: El } | null): Numbering {
  const numbering: Numbering = { nums: new Map(), abstracts: new Map() };
  if (!doc) return numbering;
  for (const el of children(doc.documentElement)) {
    if (isW(el, 'abstractNum')) {
      const levels = new Map<number, Level>();
      for (const lvl of children(el).filter((c) => isW(c, 'lvl'))) {
        levels.set(Number(attr(lvl, 'ilvl') ?? 0), {
          start: Number(attr(child(lvl, 'start'), 'val') ?? 1),
          format: attr(child(lvl, 'numFmt'), 'val') ?? 'decimal',
          text: attr(child(lvl, 'lvlText'), 'val') ?? '',
        });
      }
      numbering.abstracts.set(attr(el, 'abstractNumId') ?? '', levels);
    } else if (isW(el, 'num')) {
      const starts = new Map<number, number>();
      for (const o of children(el).filter((c) => isW(c, 'lvlOverride'))) {
        const start = attr(child(o, 'startOverride'), 'val');
        if (start !== null) starts.set(Number(attr(o, 'ilvl') ?? 0), Number(start));
      }
      numbering.nums.set(attr(el, 'numId') ?? '', { abstract: attr(child(el, 'abstractNumId'), 'val') ?? '', starts });
    }
  }
  return numbering;
}

const ROMAN: Array<[number, string]> = [
  [1000, 'm'],
  [900, 'cm'],
  [500, 'd'],
  [400, 'cd'],
  [100, 'c'],
  [90, 'xc'],
  [50, 'l'],
  [40, 'xl'],
  [10, 'x'],
  [9, 'ix'],
  [5, 'v'],
  [4, 'iv'],
  [1, 'i'],
];
function roman(n: number): string {
  let out = '';
  for (const [v, s] of ROMAN)
    while (n >= v) {
      out += s;
      n -= v;
    }
  return out;
}
function letters(n: number): string {
  // Word's letters: a..z, then aa..zz.
  const letter = String.fromCharCode(97 + ((n - 1) % 26));
  return letter.repeat(Math.floor((n - 1) / 26) + 1);
}
function formatNumber(n: number, format: string): string {
  switch (format) {
    case 'lowerLetter':
      return letters(n);
    case 'upperLetter':
      return letters(n).toUpperCase();
    case 'lowerRoman':
      return roman(n);
    case 'upperRoman':
      return roman(n).toUpperCase();
    case 'decimalZero':
      return String(n).padStart(2, '0');
    default:
      return String(n);
  }
}

/** Labels of numbered paragraphs in reading order, counting per list as Word does. */
function numberer(numbering: Numbering) {
  const counters = new Map<string, number[]>();
  return (num: { numId: string; ilvl: number }): string => {
    const n = numbering.nums.get(num.numId);
    const levels = n && numbering.abstracts.get(n.abstract);
    const level = levels?.get(num.ilvl);
    if (!n || !levels || !level) return '';
    // A num with start overrides is a list restarted; otherwise nums of one abstract share counters.
    const key = n.starts.size ? `num:${num.numId}` : `abs:${n.abstract}`;
    const counts = counters.get(key) ?? [];
    const startOf = (i: number) => n.starts.get(i) ?? levels.get(i)?.start ?? 1;
    counts[num.ilvl] = counts[num.ilvl] === undefined ? startOf(num.ilvl) : counts[num.ilvl]! + 1;
    counts.length = num.ilvl + 1;
    counters.set(key, counts);
    if (level.format === 'none') return '';
    if (level.format === 'bullet') return '•';
    return level.text.replace(/%(\d)/g, (_m, d: string) => {
      const i = Number(d) - 1;
      const lvl = levels.get(i);
      return formatNumber(counts[i] ?? startOf(i), i === num.ilvl ? level.format : (lvl?.format ?? 'decimal'));
    });
  };
}

// ---- The body -------------------------------------------------------------------------

interface Walk {
  op: Segment['op'];
  author: string | null;
  date: string | null;
  open: Set<string>;
}

function pushText(segments: Segment[], w: Walk, text: string) {
  if (!text) return;
  const last = segments.at(-1);
  const comments = [...w.open];
  if (last && last.op === w.op && last.author === w.author && last.date === w.date && last.comments.join() === comments.join())
    last.text += text;
  else segments.push({ op: w.op, text, author: w.author, date: w.date, comments });
}

/** Run content: text, tabs and breaks; field codes, drawings and footnote marks are not text. */
function readRun(run: El, segments: Segment[], w: Walk) {
  for (const c of children(run)) {
    if (c.namespaceURI !== W_NS) continue;
    switch (c.localName) {
      case 't':
      case 'delText':
        pushText(segments, w, c.textContent ?? '');
        break;
      case 'tab':
        pushText(segments, w, '\t');
        break;
      case 'br':
      case 'cr':
        pushText(segments, w, '\n');
        break;
      case 'noBreakHyphen':
        pushText(segments, w, '-');
        break;
    }
  }
}

/** Paragraph content, recursing through the wrappers Word puts around runs. */
function readInline(el: El, segments: Segment[], w: Walk) {
  for (const c of children(el)) {
    if (c.namespaceURI !== W_NS) continue;
    switch (c.localName) {
      case 'r':
        readRun(c, segments, w);
        break;
      case 'ins':
      case 'moveTo':
      case 'del':
      case 'moveFrom': {
        const op = c.localName === 'ins' || c.localName === 'moveTo' ? 'insert' : 'delete';
        readInline(c, segments, { ...w, op, author: attr(c, 'author'), date: attr(c, 'date') });
        break;
      }
      case 'commentRangeStart':
        w.open.add(attr(c, 'id') ?? '');
        break;
      case 'commentRangeEnd':
        w.open.delete(attr(c, 'id') ?? '');
        break;
      case 'hyperlink':
      case 'fldSimple':
      case 'smartTag':
      case 'customXml':
      case 'sdt':
      case 'sdtContent':
      case 'dir':
      case 'bdo':
        readInline(c, segments, w);
        break;
    }
  }
}

interface Context {
  styles: Map<string, StyleInfo>;
  open: Set<string>;
}

function readParagraph(p: El, ctx: Context): Para {
  const pPr = child(p, 'pPr');
  const style = styleOf(ctx.styles, attr(child(pPr, 'pStyle'), 'val'));
  const numPr = child(pPr, 'numPr');
  const num = numPr
    ? { numId: attr(child(numPr, 'numId'), 'val') ?? '0', ilvl: Number(attr(child(numPr, 'ilvl'), 'val') ?? 0) }
    : style.num;
  const markRpr = child(pPr, 'rPr');
  const mark = child(markRpr, 'del') ? 'delete' : child(markRpr, 'ins') ? 'insert' : null;
  const segments: Segment[] = [];
  readInline(p, segments, { op: 'equal', author: null, date: null, open: ctx.open });
  return { heading: style.heading, num: num && num.numId !== '0' ? num : null, segments, mark };
}

/** A table row as one paragraph: its cells' paragraphs joined, cells parted by tabs. */
function readRow(tr: El, ctx: Context): Para {
  const segments: Segment[] = [];
  const cells = children(tr).filter((c) => isW(c, 'tc') || isW(c, 'sdt'));
  cells.forEach((tc, i) => {
    if (i > 0) segments.push({ op: 'equal', text: '\t', author: null, date: null, comments: [] });
    const inner: Para[] = [];
    readBlocks(isW(tc, 'sdt') ? (child(tc, 'sdtContent') ?? tc) : tc, ctx, inner);
    inner.forEach((para, j) => {
      if (j > 0) segments.push({ op: 'equal', text: ' ', author: null, date: null, comments: [] });
      segments.push(...para.segments.map((s) => ({ ...s, text: s.text.replace(/\n/g, ' ') })));
    });
  });
  const trPr = child(tr, 'trPr');
  const mark = child(trPr, 'del') ? 'delete' : child(trPr, 'ins') ? 'insert' : null;
  if (mark) for (const s of segments) if (s.op === 'equal') s.op = mark;
  return { heading: 0, num: null, segments, mark };
}

function readBlocks(el: El, ctx: Context, out: Para[]) {
  for (const c of children(el)) {
    if (c.namespaceURI !== W_NS) continue;
    if (c.localName === 'p') out.push(readParagraph(c, ctx));
    else if (c.localName === 'tbl') {
      for (const tr of children(c)) if (isW(tr, 'tr')) out.push(readRow(tr, ctx));
    } else if (c.localName === 'sdt') readBlocks(child(c, 'sdtContent') ?? c, ctx, out);
    else if (['customXml', 'ins', 'del', 'moveTo', 'moveFrom'].includes(c.localName ?? '')) readBlocks(c, ctx, out);
  }
}

// ---- Views ----------------------------------------------------------------------------

interface ViewParagraph {
  text: string;
  segments: Segment[];
}

/**
 * The paragraphs with one side's changes applied: "accept" drops deletions and joins a
 * paragraph whose mark was deleted to the next; "reject" does the same for insertions.
 */
function view(paras: Para[], numbering: Numbering, side: 'accept' | 'reject'): ViewParagraph[] {
  const dropped: ChangeOp = side === 'accept' ? 'delete' : 'insert';
  const label = numberer(numbering);
  const out: ViewParagraph[] = [];
  let carry: { segments: Segment[]; para: Para } | null = null;
  for (const para of paras) {
    const kept = para.segments.filter((s) => s.op !== dropped);
    const joined: Segment[] = [...(carry?.segments ?? []), ...kept];
    // The joined paragraph keeps the properties of its first part with text, as Word shows it.
    const props: Para = carry && carry.segments.some((s) => s.text.trim()) ? carry.para : para;
    if (para.mark === dropped) {
      carry = { segments: joined, para: props };
      continue;
    }
    carry = null;
    const body = joined.map((s) => s.text).join('');
    if (!body.trim()) {
      out.push({ text: '', segments: joined });
      continue;
    }
    const number = props.num ? label(props.num) : '';
    const prefix = (props.heading ? `${'#'.repeat(Math.min(props.heading, 6))} ` : '') + (number ? `${number} ` : '');
    out.push({ text: prefix + body, segments: joined });
  }
  if (carry) out.push({ text: carry.segments.map((s) => s.text).join(''), segments: carry.segments });
  return out;
}

const textOf = (paras: ViewParagraph[]) =>
  paras
    .map((p) => p.text.trimEnd())
    .filter((t) => t.trim())
    .join('\n');

export async function readDocx(zip: JSZip): Promise<WordReading> {
  const document = await partXml(zip, 'word/document.xml');
  const body = document && child(document.documentElement, 'body');
  if (!body) throw new DocxFormatError('the file has no word/document.xml body');
  const ctx: Context = { styles: readStyles(await partXml(zip, 'word/styles.xml')), open: new Set() };
  const numbering = readNumbering(await partXml(zip, 'word/numbering.xml'));
  const paras: Para[] = [];
  readBlocks(body, ctx, paras);

  const accepted = view(paras, numbering, 'accept');
  const rejected = view(paras, numbering, 'reject');
  const changes: TrackedChange[] = [];
  const collect = (paragraphs: ViewParagraph[], op: ChangeOp) => {
    let index = 0;
    for (const p of paragraphs) {
      if (!p.text.trim()) continue;
      for (const s of p.segments)
        if (s.op === op && s.text.trim()) changes.push({ op, text: s.text, author: s.author, date: s.date, paragraph: index });
      index++;
    }
  };
  collect(accepted, 'insert');
  collect(rejected, 'delete');
  changes.sort((x, y) => x.paragraph - y.paragraph);

  const anchors = new Map<string, string>();
  for (const p of accepted) for (const s of p.segments) for (const id of s.comments) anchors.set(id, (anchors.get(id) ?? '') + s.text);
  const comments: WordComment[] = [];
  const commentsXml = await partXml(zip, 'word/comments.xml');
  for (const c of commentsXml ? children(commentsXml.documentElement) : []) {
    if (!isW(c, 'comment')) continue;
    const id = attr(c, 'id') ?? '';
    const inner: Para[] = [];
    readBlocks(c, { styles: ctx.styles, open: new Set() }, inner);
    comments.push({
      number: Number.isFinite(Number(id)) ? Number(id) : -1,
      author: attr(c, 'author'),
      date: attr(c, 'date'),
      text: inner
        .map((p) =>
          p.segments
            .filter((s) => s.op !== 'delete')
            .map((s) => s.text)
            .join(''),
        )
        .join('\n')
        .trim(),
      anchor: (anchors.get(id) ?? '').trim(),
    });
  }
  return { accepted: textOf(accepted), rejected: textOf(rejected), changes, comments };
}
