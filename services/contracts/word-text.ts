/**
 * Between the service's text of a contract and Word's paragraphs, both ways of the round
 * trip: a version's text as Word paragraphs (`#` lines become Heading styles, numbered
 * clauses are indented under their number, which stays in the text so the file reads back
 * to the same text), a redline as paragraphs with native tracked changes, and the authors of
 * a Word file's tracked changes laid on the redline that shows them. Pure.
 */
import type { DocxParagraph, RunChange } from '../../platform/docx/write-docx';
import type { TrackedChange } from '../../platform/docx/read-docx';
import type { RedlineParagraph, WordPart } from './redline';

const HEADING = /^(#{1,6}) (?=\S)/;

/** How deep a numbered clause sits: "1." 0, "1.1" 1, "1.1.1" 2, "(a)" and "(iv)" 2. */
function depthOf(text: string): number {
  const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(text);
  if (number) return number[1]!.split('.').length - 1;
  return /^\(?[a-z]{1,4}\)\s/i.test(text) ? 2 : 0;
}

/** One line of text as a Word paragraph (its runs are left to the caller). */
function shape(text: string): { heading?: number; indent?: number; rest: string } {
  const h = HEADING.exec(text);
  if (h) return { heading: h[1]!.length, rest: text.slice(h[0].length) };
  const indent = depthOf(text);
  return indent ? { indent, rest: text } : { rest: text };
}

/** A version's text as Word paragraphs: one per non-blank line. */
export function textParagraphs(text: string): DocxParagraph[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim())
    .map((line) => {
      const { rest, ...props } = shape(line.trimEnd());
      return { ...props, runs: [{ text: rest }] };
    });
}

export interface Attributed {
  author?: string | null;
  date?: string | null;
}

/**
 * A redline as Word paragraphs with tracked changes: "accept all" gives version b's text,
 * "reject all" version a's. A paragraph deleted or inserted whole has its mark tracked too,
 * so that settling it removes the paragraph, not only its words.
 */
export function redlineParagraphs(paragraphs: Array<RedlineParagraph & Attributed>, by: { author: string; date: string }): DocxParagraph[] {
  const change = (op: RunChange['op'], who: Attributed): RunChange => ({ op, author: who.author ?? by.author, date: who.date ?? by.date });
  return paragraphs.map((p) => {
    if (p.op === 'equal') return textParagraphs(p.text)[0] ?? { runs: [] };
    if (p.op === 'insert' || p.op === 'delete') {
      const { rest, ...props } = shape(p.text);
      const c = change(p.op, p);
      return { ...props, runs: [{ text: rest, change: c }], mark: c };
    }
    const parts: Array<WordPart & Attributed> = p.parts.map((x) => ({ ...x }));
    // A heading stays a heading when its marker is unchanged text.
    const head = parts[0]?.op === 'equal' ? HEADING.exec(parts[0].text) : null;
    if (head) parts[0]!.text = parts[0]!.text.slice(head[0].length);
    return {
      ...(head ? { heading: head[1]!.length } : {}),
      runs: parts.map((x) => (x.op === 'equal' ? { text: x.text } : { text: x.text, change: change(x.op, x) })),
    };
  });
}

const norm = (t: string) => t.replace(/\s+/g, ' ').trim();

/**
 * Marks the redline's insertions and deletions that a Word file's tracked changes made with
 * their author and date: a part matches a tracked change of the same kind whose text holds
 * it or is held by it (the word diff may cut the same edit differently than Word did).
 */
export function attributeChanges(paragraphs: Array<RedlineParagraph & Attributed>, changes: readonly TrackedChange[]): void {
  const pools = {
    insert: changes.filter((c) => c.op === 'insert').map((c) => ({ ...c, key: norm(c.text) })),
    delete: changes.filter((c) => c.op === 'delete').map((c) => ({ ...c, key: norm(c.text) })),
  };
  const mark = (target: Attributed, op: 'insert' | 'delete', text: string) => {
    const t = norm(text);
    const found = t && pools[op].find((c) => c.key && (c.key.includes(t) || t.includes(c.key)));
    if (found) Object.assign(target, { author: found.author, date: found.date });
  };
  for (const p of paragraphs) {
    if (p.op === 'insert' || p.op === 'delete') mark(p, p.op, p.text);
    else if (p.op === 'change')
      for (const part of p.parts as Array<WordPart & Attributed>) if (part.op !== 'equal') mark(part, part.op, part.text);
  }
}
