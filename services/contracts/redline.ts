/**
 * The redline of two texts: paragraphs matched first, then words within changed paragraphs.
 * Pure and bounded, so it runs in a worker thread (platform/offload.ts) within a time budget.
 *
 * Never quadratic: paragraphs are compared as whole strings (a Map gives each distinct
 * paragraph an id), the common head and tail are cut off, paragraphs that occur exactly once
 * on both sides anchor the match (patience diff: a longest increasing subsequence,
 * O(k log k)), and only the gaps between anchors go to jsdiff's Myers diff with a bounded
 * edit length (O((N+M)·D), D capped); a gap beyond the cap is a whole replacement. Within a
 * changed paragraph the words are diffed with a size and edit cap as well, falling back to
 * replacing the paragraph whole.
 */
import { diffArrays } from 'diff';

export type WordOp = 'equal' | 'insert' | 'delete';
export interface WordPart {
  op: WordOp;
  text: string;
}

/** One paragraph of the redline; `a` and `b` are its 0-based positions in each version's paragraphs. */
export type RedlineParagraph =
  | { op: 'equal'; a: number; b: number; text: string }
  | { op: 'delete'; a: number; text: string }
  | { op: 'insert'; b: number; text: string }
  | { op: 'change'; a: number; b: number; parts: WordPart[] };

export interface Redline {
  paragraphs: RedlineParagraph[];
  stats: { paragraphs_a: number; paragraphs_b: number; inserted_words: number; deleted_words: number; changed_paragraphs: number };
}

/** Edits Myers may spend on one gap of paragraphs, and on one paragraph's words. */
const PARAGRAPH_EDIT_CAP = 400;
const WORD_EDIT_CAP = 200;
/** A changed paragraph longer than this (either side) is shown replaced whole. */
const WORD_DIFF_MAX_CHARS = 20_000;
/**
 * What word-level Myers may spend on one redline in all, in (tokens × edit cap) of each call:
 * past it, changed paragraphs are shown replaced whole. Two unrelated long texts stay cheap.
 */
const WORD_WORK_BUDGET = 4_000_000;
/** Below this share of unchanged text, a pair of paragraphs is a deletion and an insertion, not an edit. */
const MIN_SIMILARITY = 0.3;

export function paragraphsOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((p) => p.trimEnd())
    .filter((p) => p.trim() !== '');
}

type PairOp = { op: 'equal'; a: number; b: number } | { op: 'delete'; a: number } | { op: 'insert'; b: number };

/** Longest increasing subsequence of `b` positions (pairs sorted by `a`), O(k log k). */
function increasingRun(pairs: Array<[number, number]>): Array<[number, number]> {
  const tails: number[] = [];
  const prev = new Array<number>(pairs.length).fill(-1);
  for (let i = 0; i < pairs.length; i++) {
    const b = pairs[i]![1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < b) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out: Array<[number, number]> = [];
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = prev[i]!) out.push(pairs[i]!);
  return out.reverse();
}

/** A gap with no unique anchors: Myers with an edit cap, else replace it whole. */
function gapDiff(a: number[], b: number[], aLo: number, aHi: number, bLo: number, bHi: number, out: PairOp[]): void {
  const changes =
    aHi > aLo && bHi > bLo ? diffArrays(a.slice(aLo, aHi), b.slice(bLo, bHi), { maxEditLength: PARAGRAPH_EDIT_CAP }) : undefined;
  if (!changes) {
    for (let i = aLo; i < aHi; i++) out.push({ op: 'delete', a: i });
    for (let j = bLo; j < bHi; j++) out.push({ op: 'insert', b: j });
    return;
  }
  let i = aLo;
  let j = bLo;
  for (const c of changes) {
    for (let k = 0; k < c.count; k++) {
      if (c.added) out.push({ op: 'insert', b: j++ });
      else if (c.removed) out.push({ op: 'delete', a: i++ });
      else out.push({ op: 'equal', a: i++, b: j++ });
    }
  }
}

/** Anchors found inside a gap recurse; past this depth a gap goes to Myers directly (bounded stack). */
const MAX_DEPTH = 32;

function matchParagraphs(a: number[], b: number[], aLo: number, aHi: number, bLo: number, bHi: number, out: PairOp[], depth = 0): void {
  // The common head and tail.
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) out.push({ op: 'equal', a: aLo++, b: bLo++ });
  const tail: PairOp[] = [];
  while (aHi > aLo && bHi > bLo && a[aHi - 1] === b[bHi - 1]) tail.push({ op: 'equal', a: --aHi, b: --bHi });
  if (aLo < aHi && bLo < bHi) {
    // Paragraphs found exactly once on each side, in order, anchor the match.
    const count = new Map<number, { a: number; b: number; at: number }>();
    for (let i = aLo; i < aHi; i++) {
      const c = count.get(a[i]!) ?? { a: 0, b: 0, at: i };
      c.a++;
      count.set(a[i]!, c);
    }
    const unique: Array<[number, number]> = [];
    const seenInB = new Map<number, number>();
    for (let j = bLo; j < bHi; j++) seenInB.set(b[j]!, (seenInB.get(b[j]!) ?? 0) + 1);
    for (let j = bLo; j < bHi; j++) {
      const c = count.get(b[j]!);
      if (c && c.a === 1 && seenInB.get(b[j]!) === 1) unique.push([c.at, j]);
    }
    unique.sort((x, y) => x[0] - y[0]);
    const anchors = depth < MAX_DEPTH ? increasingRun(unique) : [];
    if (anchors.length) {
      let i = aLo;
      let j = bLo;
      for (const [ai, bj] of anchors) {
        matchParagraphs(a, b, i, ai, j, bj, out, depth + 1);
        out.push({ op: 'equal', a: ai, b: bj });
        i = ai + 1;
        j = bj + 1;
      }
      matchParagraphs(a, b, i, aHi, j, bHi, out, depth + 1);
    } else gapDiff(a, b, aLo, aHi, bLo, bHi, out);
  } else {
    for (let i = aLo; i < aHi; i++) out.push({ op: 'delete', a: i });
    for (let j = bLo; j < bHi; j++) out.push({ op: 'insert', b: j });
  }
  out.push(...tail.reverse());
}

/** Words, runs of spaces and single punctuation marks: what a word-level redline inserts and deletes. */
const TOKEN = /\s+|[\p{L}\p{N}_'’-]+|[^\s\p{L}\p{N}_'’-]/gu;

function pushPart(parts: WordPart[], op: WordOp, text: string) {
  const last = parts.at(-1);
  if (last?.op === op) last.text += text;
  else if (text) parts.push({ op, text });
}

/** Words of one changed paragraph, or null when it is too long, too different or too costly to diff. */
function wordParts(x: string, y: string, budget: { left: number }): WordPart[] | null {
  if (x.length > WORD_DIFF_MAX_CHARS || y.length > WORD_DIFF_MAX_CHARS) return null;
  const tx = x.match(TOKEN) ?? [];
  const ty = y.match(TOKEN) ?? [];
  // Myers only between the common head and tail: a small edit costs little however long the paragraph.
  let head = 0;
  while (head < tx.length && head < ty.length && tx[head] === ty[head]) head++;
  let tail = 0;
  while (tail < tx.length - head && tail < ty.length - head && tx[tx.length - 1 - tail] === ty[ty.length - 1 - tail]) tail++;
  const mx = tx.slice(head, tx.length - tail);
  const my = ty.slice(head, ty.length - tail);
  const cost = (mx.length + my.length) * Math.min(WORD_EDIT_CAP, mx.length + my.length);
  if (cost > budget.left) return null;
  budget.left -= cost;
  const changes = mx.length && my.length ? diffArrays(mx, my, { maxEditLength: WORD_EDIT_CAP }) : [];
  if (!changes) return null;
  const parts: WordPart[] = [];
  pushPart(parts, 'equal', tx.slice(0, head).join(''));
  if (!mx.length || !my.length) {
    pushPart(parts, 'delete', mx.join(''));
    pushPart(parts, 'insert', my.join(''));
  }
  // Deletions before insertions within a change, as a reader expects (old struck, then new).
  for (const c of changes) pushPart(parts, c.added ? 'insert' : c.removed ? 'delete' : 'equal', c.value.join(''));
  pushPart(parts, 'equal', tx.slice(tx.length - tail).join(''));
  // Shared spaces say nothing of likeness: only the characters of shared words count.
  const same = parts.reduce((n, p) => n + (p.op === 'equal' ? p.text.replace(/\s+/g, '').length : 0), 0);
  return same / Math.max(x.replace(/\s+/g, '').length, y.replace(/\s+/g, '').length, 1) >= MIN_SIMILARITY ? parts : null;
}

const wordCount = (text: string) => (text.match(/\S+/g) ?? []).length;

export function redlineTexts({ a, b }: { a: string; b: string }): Redline {
  const pa = paragraphsOf(a);
  const pb = paragraphsOf(b);
  const ids = new Map<string, number>();
  const idOf = (p: string) => {
    let id = ids.get(p);
    if (id === undefined) ids.set(p, (id = ids.size));
    return id;
  };
  const ops: PairOp[] = [];
  matchParagraphs(pa.map(idOf), pb.map(idOf), 0, pa.length, 0, pb.length, ops);

  const paragraphs: RedlineParagraph[] = [];
  const budget = { left: WORD_WORK_BUDGET };
  const stats = { paragraphs_a: pa.length, paragraphs_b: pb.length, inserted_words: 0, deleted_words: 0, changed_paragraphs: 0 };
  // A run of deletions and insertions pairs up in order: each pair similar enough is an edit, word by word.
  for (let k = 0; k < ops.length;) {
    const op = ops[k]!;
    if (op.op === 'equal') {
      paragraphs.push({ op: 'equal', a: op.a, b: op.b, text: pb[op.b]! });
      k++;
      continue;
    }
    const dels: number[] = [];
    const ins: number[] = [];
    for (; k < ops.length && ops[k]!.op !== 'equal'; k++) {
      const o = ops[k]!;
      if (o.op === 'delete') dels.push(o.a);
      else if (o.op === 'insert') ins.push(o.b);
    }
    const pairs = Math.min(dels.length, ins.length);
    for (let i = 0; i < Math.max(dels.length, ins.length); i++) {
      const parts = i < pairs ? wordParts(pa[dels[i]!]!, pb[ins[i]!]!, budget) : null;
      if (parts) {
        paragraphs.push({ op: 'change', a: dels[i]!, b: ins[i]!, parts });
        stats.changed_paragraphs++;
        for (const p of parts)
          if (p.op === 'insert') stats.inserted_words += wordCount(p.text);
          else if (p.op === 'delete') stats.deleted_words += wordCount(p.text);
        continue;
      }
      if (i < dels.length) {
        paragraphs.push({ op: 'delete', a: dels[i]!, text: pa[dels[i]!]! });
        stats.deleted_words += wordCount(pa[dels[i]!]!);
      }
      if (i < ins.length) {
        paragraphs.push({ op: 'insert', b: ins[i]!, text: pb[ins[i]!]! });
        stats.inserted_words += wordCount(pb[ins[i]!]!);
      }
    }
  }
  return { paragraphs, stats };
}
