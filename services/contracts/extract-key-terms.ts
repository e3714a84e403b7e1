/**
 * Key terms by rules (the local provider): each term is looked for where contracts state it,
 * in a cover page's labelled rows ("Governing Law" then "The laws of …") and in clause
 * sentences ("…within 30 days…"), and quoted verbatim with its page. Text a form leaves
 * unselected (an unticked "[  ]" or "(  )" option) and bracketed drafting notes are not the
 * contract's terms and are skipped. A term the text does not state is null.
 */
import { offloadTask } from '../../platform/offload';
import type { Page } from '../search/chunking';
import { emptyTerms, type KeyTerm, type KeyTermName, type KeyTerms, type NullReasons, type TermSource } from './key-terms.shared';
import { addDuration, latestDate, startNamedIn, type AwaitingSignature, type Duration, type StartKind } from './term-dates';

interface Line {
  text: string;
  /** `text` with the full stops that end no sentence ("U.S.", "Inc.,", "e.g.", "5,000.00") masked; same length. */
  plain: string;
  page: number;
  /** Offset of `text` in its page's text. */
  at: number;
  /** Unselected or a drafting note: not a term of the contract. */
  ignored: boolean;
  /** Where its sentences end, found once on first use (sentenceStops). */
  stops?: SentenceStops;
  /** The whole text of its page, for quotes that span lines (a cover page's row). */
  source: string;
}

const UNTICKED = /^(\[\s+\]|\(\s+\))/;
/** A ticked box, "[ x ]": a selected option, not a note. */
const TICKED = /^\[\s*[xX✓]\s*\]$/;

/** Stands in for a full stop that ends no sentence, so that sentence bounds and `[^.]` runs pass over it. */
const MASK = '\u2024';
/**
 * Full stops that end no sentence: initialisms ("U.S.", "e.g."), titles and references
 * ("No. 5", "Dr."), decimal points, and a company suffix ("Inc.", "Ltd.") when the sentence
 * goes on after it (a comma, a bracket or a lower-case word follows).
 */
const NOT_A_STOP =
  /\b(?:[A-Za-z]\.){2,}(?!\s*$)|\b(?:cf|viz|vs|approx|Mr|Mrs|Ms|Dr|Jr|Sr|St)\.|\b(?:No|Nos|Sec|Secs|Art|Para)\.(?=\s*\d)|\d\.(?=\d)|\b(?:Inc|Ltd|Corp|Co|Pty|Bhd|etc)\.(?=\s*[,;:)(]|\s+[a-z])/g;

const maskAbbreviations = (text: string) => text.replace(NOT_A_STOP, (m) => m.replaceAll('.', MASK));
const unmask = (text: string) => text.replaceAll(MASK, '.');

/**
 * The bracketed notes or examples of a page ("[Drafting note: …]", but not a ticked box) as
 * [start, end) ranges, in order, found in one pass: a regex (`\[[^\]]*\]`) would rescan to
 * the end of the text from every "[" that no "]" follows.
 */
function bracketedNotes(text: string): Array<[number, number]> {
  const notes: Array<[number, number]> = [];
  let close = -1;
  for (let i = text.indexOf('['); i !== -1;) {
    if (close < i) close = text.indexOf(']', i + 1);
    if (close === -1) break; // no "]" after this "[": none after any later one either
    if (TICKED.test(text.slice(i, close + 1))) {
      i = text.indexOf('[', i + 1);
      continue;
    }
    notes.push([i, close + 1]);
    i = text.indexOf('[', close + 1);
  }
  return notes;
}
/**
 * A line longer than `maxChars` read in pieces of at most that many characters, each cut after
 * the last sentence end (or else white space) within it: the rules' work on one line stays
 * bounded, and every piece is still verbatim text of its page.
 */
function piecesOf(text: string, maxChars: number): Array<{ text: string; offset: number }> {
  const out: Array<{ text: string; offset: number }> = [];
  let from = 0;
  while (text.length - from > maxChars) {
    const window = text.slice(from, from + maxChars);
    const sentenceEnd = Math.max(window.lastIndexOf('. '), window.lastIndexOf('; '), window.lastIndexOf('? '), window.lastIndexOf('! '));
    const space = window.search(/\s\S*$/);
    const cut = sentenceEnd > 0 ? sentenceEnd + 1 : space > 0 ? space : maxChars;
    out.push({ text: window.slice(0, cut), offset: from });
    from += cut;
    while (from < text.length && /\s/.test(text[from]!)) from++;
  }
  if (from < text.length) out.push({ text: text.slice(from), offset: from });
  return out;
}

/** A line of prose cut short: it ends on a comma, a hyphen or a word that cannot end a sentence. */
const CUT_SHORT =
  /(?:[,(-]|\b(?:a|an|and|or|nor|the|of|to|for|by|in|on|at|with|from|between|under|upon|than|that|which|its|their|this|any|each|either|such|as|be|is|are|shall|will|may|must|not|no|per)|\d)$/i;
/** A line that starts a new block: a numbered or lettered item, a bullet, a "Label:" row or a heading in capitals. */
const STARTS_BLOCK = /^(?:\d+(?:\.\d+)*\.?\s|\(?[a-z0-9]{1,4}\)\s|[-*•]\s|[A-Z][\w /&()'-]{0,40}:\s|[A-Z0-9 ,.&'-]+$)/;
const LABEL_ROW = /^[A-Z][\w /&()'-]{0,40}:\s/;
/** Below this length a line is a row or a heading, not prose that wraps. */
const WRAPPED_MIN_CHARS = 40;

/**
 * The page's text as lines, a paragraph of prose wrapped over several lines (a plain-text file
 * or a PDF) joined into one: "…by and between Acme, LLC and" + "Beta Corp." is one sentence.
 * A line is joined to the next when it is long, holds no table cell (tab), ends where no sentence
 * ends, and the next line continues it (lower case, an opening bracket, or after a line cut
 * short) rather than starting a block. Newlines inside a joined line become spaces, so offsets
 * into the page's text still hold, and quotes stay verbatim up to white space.
 */
function rawLines(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    while (i + 1 < lines.length) {
      const last = lines[i]!.trim();
      const next = lines[i + 1]!.trim();
      const joins =
        last.length >= WRAPPED_MIN_CHARS &&
        next &&
        !last.includes('\t') &&
        !next.includes('\t') &&
        !/[.;:!?"”)]$/.test(last) &&
        !LABEL_ROW.test(last) &&
        !STARTS_BLOCK.test(next) &&
        (/^[a-z(]/.test(next) || CUT_SHORT.test(last) || /^[A-Z][\w&.,'-]*(?:\s+[A-Z][\w&.,'-]*)*\s+(?:[a-z(]|$)/.test(next));
      if (!joins) break;
      line += ' ' + lines[++i]!;
    }
    out.push(line);
  }
  return out;
}

/** The page's lines, each marked ignored when it is an unselected option or inside a bracketed note. */
function linesOf(pages: readonly Page[], maxLineChars: number): Line[] {
  const out: Line[] = [];
  for (const { page, text } of pages) {
    const notes = bracketedNotes(text);
    // Lines come in order of their start: the only note that can hold a line is the last one starting at or before it.
    let note = 0;
    let at = 0;
    for (const raw of rawLines(text)) {
      const lead = raw.length - raw.trimStart().length;
      const t = raw.trim();
      if (t) {
        for (const piece of piecesOf(t, maxLineChars)) {
          const start = at + lead + piece.offset;
          while (note + 1 < notes.length && notes[note + 1]![0] <= start) note++;
          const [a, b] = notes[note] ?? [Infinity, -Infinity];
          const inNote = start >= a && start + piece.text.length <= b;
          out.push({
            text: piece.text,
            plain: maskAbbreviations(piece.text),
            page,
            at: start,
            ignored: UNTICKED.test(piece.text) || inNote,
            source: text,
          });
        }
      }
      at += raw.length + 1;
    }
  }
  return out;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DATE =
  /\b(?:(January|February|March|April|May|June|July|August|September|October|November|December)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})|(\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(January|February|March|April|May|June|July|August|September|October|November|December),?\s+(\d{4})|(\d{4})-(\d{2})-(\d{2}))\b/;

function isoDate(m: RegExpExecArray): string | null {
  const [y, mo, d] = m[1]
    ? [m[3], MONTHS.indexOf(m[1].toLowerCase()) + 1, m[2]]
    : m[5]
      ? [m[6], MONTHS.indexOf(m[5].toLowerCase()) + 1, m[4]]
      : [m[7], Number(m[8]), m[9]];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(d) ? null : date.toISOString().slice(0, 10);
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  eighteen: 18,
  fourteen: 14,
  twenty: 20,
  'twenty-four': 24,
  thirty: 30,
  'thirty-six': 36,
  forty: 40,
  'forty-five': 45,
  'forty-eight': 48,
  sixty: 60,
  ninety: 90,
};
/** A number word, either case of its first letter (longest first, so "thirty-six" is not read as "thirty"). */
const NUMBER_WORD = Object.keys(NUMBER_WORDS)
  .sort((a, b) => b.length - a.length)
  .map((w) => `[${w[0]}${w[0]!.toUpperCase()}]${w.slice(1)}`)
  .join('|');
/**
 * A count as contracts write it: digits, a number word, or any number in words with its digits
 * after it ("forty-five (45)", whose digits are read).
 */
const COUNT = String.raw`(\d{1,4}|[A-Za-z]+(?:-[a-z]+)?\s*\(\d{1,4}\)|(?:${NUMBER_WORD})\b)`;
/** A count's value, or NaN. */
const countOf = (written: string) => {
  const digits = /\((\d+)\)/.exec(written);
  return digits ? Number(digits[1]) : (NUMBER_WORDS[written.toLowerCase()] ?? Number(written));
};
const DURATION = new RegExp(String.raw`\b${COUNT}(?:\s*\(\d+\))?[\s-]+(day|week|month|year)s?\b`, 'i');

/** A duration as written: its count and unit (for calendar arithmetic). */
function durationOf(m: RegExpExecArray): Duration {
  return { n: countOf(m[1]!), unit: m[2]!.toLowerCase() as Duration['unit'] };
}

/** A duration in days: months count 365/12 days, years 365. */
function durationDays(m: RegExpExecArray): number {
  const { n, unit } = durationOf(m);
  return Math.round(n * (unit === 'day' ? 1 : unit === 'week' ? 7 : unit === 'month' ? 365 / 12 : 365));
}

/**
 * The full stops of a line (. ! ? before white space or the end), in order, each with the end of
 * the white space after it: found in one pass, so that finding a sentence is a binary search
 * (finding them again for each sentence made long lines quadratic).
 */
interface SentenceStops {
  at: number[];
  /** Where the white space after each stop ends. */
  spaceEnd: number[];
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

function sentenceStops(line: Line): SentenceStops {
  if (line.stops) return line.stops;
  const stops: SentenceStops = { at: [], spaceEnd: [] };
  const p = line.plain;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if ((c !== '.' && c !== '!' && c !== '?') || (i + 1 < p.length && !isSpace(p[i + 1]))) continue;
    let end = i + 1;
    while (isSpace(p[end])) end++;
    stops.at.push(i);
    stops.spaceEnd.push(end);
    i = end - 1;
  }
  line.stops = stops;
  return stops;
}

/** The number of stops in `at` below `limit`. */
function countBelow(at: readonly number[], limit: number): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Where the sentence of `line` around `index` starts and ends (a sentence ends at . ! ? before
 * white space): it starts after the white space that follows the last stop before `index`
 * (counting only the white space before `index`), and ends after the first stop from `index`.
 */
function sentenceBounds(line: Line, index: number): [number, number] {
  const { at, spaceEnd } = sentenceStops(line);
  // A stop counts for the start when at least one white-space character after it lies before index.
  const before = countBelow(at, index - 1) - 1;
  const start = before >= 0 ? Math.min(spaceEnd[before]!, index) : 0;
  const after = countBelow(at, index);
  return [start, after < at.length ? at[after]! + 1 : line.plain.length];
}

/** The sentence of `line` around `index`, verbatim. */
function sentenceAround(line: Line, index: number): string {
  const [start, end] = sentenceBounds(line, index);
  return line.text.slice(start, end).trim();
}

/** The sentences of a line, verbatim and masked. */
function sentencesOf(line: Line): Array<{ text: string; plain: string }> {
  const out: Array<{ text: string; plain: string }> = [];
  for (let at = 0; at < line.plain.length;) {
    const [start, end] = sentenceBounds(line, at);
    out.push({ text: line.text.slice(start, end), plain: line.plain.slice(start, end) });
    // The next sentence starts after the white space that ends this one.
    let next = end;
    while (isSpace(line.plain[next])) next++;
    at = Math.max(next, at + 1);
  }
  return out;
}

const unmasked = (v: unknown): unknown => (typeof v === 'string' ? unmask(v) : Array.isArray(v) ? v.map(unmasked) : v);

const term = (line: Line, value: string, normalized: unknown, confidence: number, quote = line.text): KeyTerm => ({
  value: unmask(value).trim(),
  normalized: unmasked(normalized),
  quote,
  page: line.page,
  confidence,
  confirmed: false,
});

/** The first line (not ignored) where `re` matches, with the match. */
function firstMatch(lines: readonly Line[], re: RegExp): { line: Line; m: RegExpExecArray } | null {
  for (const line of lines) {
    if (line.ignored) continue;
    const m = re.exec(line.plain);
    if (m) return { line, m };
  }
  return null;
}

/** A cover page's row: the line holding the value, the value matched in it, and the row quoted (label and value). */
interface Row {
  line: Line;
  m: RegExpExecArray;
  /** The value as written (the value line, or what follows the label on its line). */
  value: string;
  quote: string;
}

/** The label's pattern (anchored at both ends) as the start of a "Label: value", "Label<tab>value" or "Label | value" line. */
const labelHead = (label: RegExp) => new RegExp(label.source.replace(/\$$/, String.raw`\s*(?::|\t|\|)\s*`), label.flags);

/** The page text from the label line through the value line: the row as the page writes it. */
const rowQuote = (label: Line, value: Line) =>
  label.page === value.page && value.at > label.at ? label.source.slice(label.at, value.at + value.text.length) : value.text;
/** Lines between a label and its value other than white space: a note or a sub-label, which a quote of the row would carry. */
const adjacent = (lines: readonly Line[], i: number, next: Line) => lines[i + 1] === next;

/**
 * A cover page's row: a label line that `label` matches, with its value on the same line ("Governing
 * Law: Illinois", a table row "Term<tab>2 years") or on a selected line within a few lines after it (a
 * table cell below). With `unique`, a label the page repeats (a "Duration" row under each covenant)
 * is a field of each item, not of the agreement, and is passed over.
 */
function labelled(lines: readonly Line[], label: RegExp, value: RegExp, unique = false): Row | null {
  const head = labelHead(label);
  let times: Map<string, number> | undefined;
  const repeated = (text: string) => {
    times ??= lines.reduce((m, l) => m.set(l.plain, (m.get(l.plain) ?? 0) + 1), new Map<string, number>());
    return times.get(text)! > 1;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (unique && repeated(line.plain)) continue;
    if (label.test(line.plain)) {
      for (const next of lines.slice(i + 1, i + 5)) {
        if (next.ignored) continue;
        const m = value.exec(next.plain);
        if (m) return { line: next, m, value: next.text, quote: adjacent(lines, i, next) ? rowQuote(line, next) : next.text };
      }
      continue;
    }
    const h = !line.ignored && head.exec(line.plain);
    if (!h) continue;
    const rest = line.plain.slice(h[0].length);
    const m = value.exec(rest);
    if (m) return { line, m, value: line.text.slice(h[0].length), quote: line.text };
  }
  return null;
}

/**
 * A party's name: up to a dozen words. Unbounded, "between A and A and A … x" made the two names'
 * lazy runs try every split of the line, for each "between" (cubic in the line).
 */
const ENTITY = String.raw`[A-Z][\w&'.\u2024-]*(?:\s+(?:[A-Z][\w&'.\u2024-]*|of|and|&)){0,12}?(?:,?\s+(?:Inc|LLC|L\.L\.C|Ltd|Limited|Corp|Corporation|Co|GmbH|plc|LLP|LP|AG|BV|SA|SAS)[.\u2024]?)?`;
/** What may follow a party's name before "and": its description and defined role (", a Delaware corporation (the "Company")"). */
const DESCRIBED = String.raw`(?:,\s+an?\s+[^,()\n]{1,80})?(?:\s*\([^)\n]{1,60}\))?,?`;
/** Where a party's name in a sentence ends: a stop, a bracket, the end, or the agreement's date. */
const NAME_END = String.raw`(?=\s*(?:[.,;(]|$)|\s+(?:dated|effective|as of)\b)`;
const BETWEEN = new RegExp(String.raw`\b(?:between|entered into by|made by)\s+(${ENTITY})${DESCRIBED}\s+and\s+(${ENTITY})${NAME_END}`);
/** Click-through terms: "between you ("you") and Acme, Inc.", or the other way round. The reader is not named. */
const BETWEEN_YOU = new RegExp(
  String.raw`\bbetween\s+(?:you(?:\s*\([^)\n]{1,80}\))?,?\s+and\s+(${ENTITY})${NAME_END}|(${ENTITY})${DESCRIBED}\s+and\s+you\b)`,
);
/** A definition of the accepting party that names the other: ""Customer" means the entity that has entered into this Agreement with Acme". */
const ACCEPTED_WITH = new RegExp(
  String.raw`\bmeans\b[^.\n]{0,120}?\b(?:has entered|enters|entered)\s+into\s+(?:this|the)\s+(?:Agreement|agreement|Terms|Contract|contract)\s+with\s+(${ENTITY})(?=\s*(?:[.,;(]|$)|\s+[a-z])`,
);
/** The roles a party signs or is named under on a cover page. */
const ROLE = String.raw`(?:Provider|Service Provider|Customer|Partner|Company|Client|Vendor|Supplier|Licensor|Licensee|Buyer|Seller|Purchaser|Consultant|Contractor|Subscriber|Employer|Employee|Founder|Disclosing Party|Receiving Party|Discloser|Recipient|Controller|Processor|Party(?:\s+(?:\d|[A-D]))?(?:\s+Name)?)`;
/** A signature line naming a party: "PROVIDER: Northwind Cloud, Inc.", "Party Name: Tailspin Toys, Inc.". */
const SIGNATORY = new RegExp(String.raw`^(${ROLE})\s*(?::|\t)\s*([A-Z][^\t{}]{1,120}?)\s*$`, 'i');
/** A cover page's row naming a party: the role alone on its line, the name on the next. */
const ROLE_LABEL = new RegExp(String.raw`^${ROLE}$`, 'i');
const NAME_VALUE = /^[A-Z][^\t{}[\]:]{1,120}$/;
/** Placeholder-like names a form leaves ("Provider", "{company_name}"), and a form's field names. */
const GENERIC_PARTY = /^(provider|customer|partner|company|the parties|signature|name|title|date|by|print name|signatory name)$/i;

/** How many lines apart two parties' rows may stand to be quoted as one passage. */
const PARTY_ROWS_SPAN = 12;
/** A name without the description a row adds: ", a Delaware corporation", " (company number …)". */
const withoutDescription = (name: string) => name.replace(/,\s+(?:an?|the)\s+.*$|\s+\(.*$/, '').trim();

/** A line that reads as a sentence, not a name: it ends with a stop after a lower-case word. */
const SENTENCE_LIKE = /\b[a-z]{2,}[.;:]$/;

/** A name as matched: unmasked, without a stop or comma that ends the sentence rather than "Inc." or "Ltd.". */
const cleanName = (matched: string) => {
  const n = unmask(matched).trim();
  return n.replace(/[.,]$/, (c) => (/\b(Inc|Ltd|Corp|Co)$/.test(n.slice(0, -1)) ? c : '')).trim();
};

function parties(lines: readonly Line[]): KeyTerm | null {
  const between = firstMatch(lines, BETWEEN);
  if (between) {
    const names = [between.m[1]!, between.m[2]!].map(cleanName);
    if (!names.some((n) => GENERIC_PARTY.test(n)))
      return term(between.line, `${names[0]} and ${names[1]}`, names, 0.85, sentenceAround(between.line, between.m.index));
  }
  // Rows naming a party by its role: "Customer: Acme Inc." on one line (or a table row, tab between
  // the cells), or the role alone with the name on the next line.
  const rows = lines.flatMap((l, i) => {
    if (l.ignored) return [];
    const one = SIGNATORY.exec(l.text);
    if (one) return [{ from: i, to: i, role: one[1]!, name: withoutDescription(one[2]!) }];
    const next = lines[i + 1];
    return ROLE_LABEL.test(l.text) && next && !next.ignored && NAME_VALUE.test(next.text) && !SENTENCE_LIKE.test(next.text)
      ? [{ from: i, to: i + 1, role: l.text, name: withoutDescription(next.text) }]
      : [];
  });
  const named = rows.filter((s) => !GENERIC_PARTY.test(s.name) && !ROLE_LABEL.test(s.name));
  const unique = [...new Map(named.map((s) => [s.name, s])).values()];
  if (unique.length >= 2) {
    const [a, b] = unique as [(typeof unique)[number], (typeof unique)[number]];
    // The rows quoted together when they stand close (a cover page's table), else the first.
    const first = lines[a.from]!;
    const last = lines[b.to]!;
    const quote = b.to - a.from <= PARTY_ROWS_SPAN && last.page === first.page ? rowQuote(first, last) : rowQuote(first, lines[a.to]!);
    return term(
      first,
      unique.map((s) => `${s.name} (${s.role.trim()})`).join(' and '),
      unique.map((s) => s.name),
      0.75,
      quote,
    );
  }
  // Terms a reader accepts name only the party that offers them.
  for (const re of [BETWEEN_YOU, ACCEPTED_WITH]) {
    const hit = firstMatch(lines, re);
    const name = hit && cleanName((hit.m[1] ?? hit.m[2])!);
    if (hit && name && !GENERIC_PARTY.test(name)) return term(hit.line, name, [name], 0.7, sentenceAround(hit.line, hit.m.index));
  }
  return null;
}

function dateTerm(lines: readonly Line[], labels: RegExp, inline: RegExp[]): KeyTerm | null {
  const row = labelled(lines, labels, DATE);
  if (row) {
    const iso = isoDate(row.m);
    if (iso) return term(row.line, row.m[0], iso, 0.9, row.quote);
  }
  for (const re of inline) {
    const hit = firstMatch(lines, re);
    const d = hit && DATE.exec(hit.line.text.slice(hit.m.index));
    const iso = d && isoDate(d);
    if (hit && d && iso) return term(hit.line, d[0], iso, 0.8, sentenceAround(hit.line, hit.m.index));
  }
  return null;
}

const EFFECTIVE_LABEL =
  /^(?:#+\s*)?(?:(?!Version|Revision|Last Updated|Policy)[\w ]*Effective Date|Order Date|[\w ]*Start Date|Commencement Date|Agreement Date)$/i;
const EFFECTIVE_INLINE = [
  /\bEffective Date (?:of|is)\b/i,
  /\beffective as of\b/i,
  /\b(?:made|entered into|dated)\s+(?:and entered into\s+)?(?:as of|on)\b/i,
  /\bthis (?:agreement|contract)\b[^.]{0,30}?\bdated\b/i,
  // "… March 1, 2026 (the "Effective Date")": a date the text names the Effective Date.
  new RegExp(String.raw`${DATE.source}\s*\(\s*(?:the\s+|hereinafter\s+)?["“]Effective Date["”]`),
];

/** A date a party signed on, under its signature: "Date: October 6, 2026". */
const SIGNED_ON = /^(?:Date|Dated|Date Signed|Signature Date|Signed on)\s*(?::|\t)\s*/i;
/** A sentence that starts the agreement (or makes its effective date) at a signature: "effective as of the date of the last signature below". */
const STARTS = /\b(?:effective|Effective Date|commenc\w*|begins?|starts?|takes effect)\b/;

interface SignatureStart {
  clause: TermSource;
  /** The latest date a signature line gives, with that line; null when no signature line is dated. */
  signed: { iso: string; source: TermSource } | null;
}

/** The last signature as the start: the clause that says so, and the latest signature date, if the text has one. */
function signatureStart(lines: readonly Line[]): SignatureStart | null {
  let clause: TermSource | null = null;
  for (const line of lines) {
    if (line.ignored || !STARTS.test(line.plain)) continue;
    const s = sentencesOf(line).find((x) => STARTS.test(x.plain) && startNamedIn(x.plain) === 'last_signature');
    if (s) {
      clause = { from: 'last_signature', quote: s.text.trim(), page: line.page };
      break;
    }
  }
  if (!clause) return null;
  const dated = lines.flatMap((l) => {
    const head = !l.ignored && SIGNED_ON.exec(l.plain);
    const d = head && DATE.exec(l.plain.slice(head[0].length));
    const iso = d && isoDate(d);
    return iso ? [{ iso, source: { from: 'last_signature' as const, quote: l.text, page: l.page } }] : [];
  });
  const last = latestDate(dated.map((d) => d.iso));
  return { clause, signed: last ? dated.find((d) => d.iso === last)! : null };
}

/** The effective date: stated (a row or a sentence), else the last signature's date when the text makes that the start. */
function effectiveDate(lines: readonly Line[], signature: SignatureStart | null): KeyTerm | null {
  const stated = dateTerm(lines, EFFECTIVE_LABEL, EFFECTIVE_INLINE);
  if (stated || !signature?.signed) return stated;
  const { clause, signed } = signature;
  return {
    value: signed.iso,
    normalized: signed.iso,
    quote: clause.quote,
    page: clause.page,
    confidence: 0.75,
    confirmed: false,
    derived_from: ['last_signature'],
    sources: [clause, signed.source],
  };
}

const END_LABEL = /^(?:#+\s*)?(?:End Date|Expiration Date|Expiry Date|Termination Date)$/i;
const END_INLINE = [/\b(?:expires? on|terminates? on|end(?:s)? on|until)\s+/i];
/** A commencement stated apart from the effective date: "Services shall commence on August 17, 2026". */
const COMMENCEMENT_LABEL = /^(?:#+\s*)?(?:Commencement Date|[\w ]*Start Date|Go-Live Date)$/i;
const COMMENCEMENT_INLINE = [/\bcommenc\w*\s+on\b/i, /\b(?:start|begin)s?\s+on\b/i, /\bCommencement Date\b/];

/** A term without a fixed end: "continues until the completion of the Services", "for as long as Processor processes". */
const OPEN_ENDED =
  /\b(?:continues?|remains?|remain in (?:full )?(?:force|effect)|stays? in (?:force|effect)|in (?:force|effect))\b[^.]{0,80}?\b(?:until\b|for (?:as|so) long as\b)/i;
/** Renewal at the end of a term that is not stated: "renews upon expiry of the then-current term". */
const THEN_CURRENT = /\brenew\w*\b[^.]{0,80}?\b(?:then[- ]current|current|existing)\s+term\b/i;

const START_NAMES: Record<StartKind, string> = {
  effective_date: 'the effective date',
  commencement_date: 'the commencement date',
  last_signature: 'the last signature',
};

/** The first sentence `re` matches, quoted. */
function sentenceMatching(lines: readonly Line[], re: RegExp): string | null {
  for (const line of lines) {
    if (line.ignored || !re.test(line.plain)) continue;
    const s = sentencesOf(line).find((x) => re.test(x.plain));
    if (s) return s.text.trim();
  }
  return null;
}

/** A start date the term names other than the effective date or the signatures: "6 months after the SOW Date". */
function otherStartDate(quote: string): string | null {
  const m = /\b(?:from|after|following|on|with)\s+the\s+((?:[A-Z][\w-]*\s+){1,3}Date)\b/.exec(quote);
  return m && !/^Effective Date$/i.test(m[1]!) && startNamedIn(m[1]!) !== 'last_signature' ? m[1]! : null;
}

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The date a defined date names: a row of that name, "the SOW Date is …", or "… March 2, 2026 (the "SOW Date")". */
function namedDate(lines: readonly Line[], name: string): KeyTerm | null {
  const n = escapeRe(name);
  const row = dateTerm(lines, new RegExp(String.raw`^(?:#+\s*)?${n}$`, 'i'), [
    new RegExp(String.raw`\b${n}\b\W{0,3}(?:is|means|shall be|will be|:)`),
  ]);
  if (row) return row;
  const before = new RegExp(String.raw`${DATE.source}\s*\(\s*(?:the\s+)?["“]${n}["”]\s*\)`);
  const hit = firstMatch(lines, before);
  const iso = hit && isoDate(hit.m);
  return hit && iso ? term(hit.line, hit.m[0], iso, 0.8, sentenceAround(hit.line, hit.m.index)) : null;
}

const squashed = (text: string) => text.replace(/\s+/g, ' ').trim();

interface Start {
  iso: string;
  from: NonNullable<KeyTerm['derived_from']>;
  sources: TermSource[];
}

/** The start a term is counted from, by what its sentence names; null when the text does not date it. */
function startOf(
  kind: StartKind,
  named: string | null,
  lines: readonly Line[],
  effective: KeyTerm | null,
  signature: SignatureStart | null,
): Start | null {
  if (kind === 'commencement_date') {
    const c = named ? namedDate(lines, named) : dateTerm(lines, COMMENCEMENT_LABEL, COMMENCEMENT_INLINE);
    return c
      ? { iso: c.normalized as string, from: ['commencement_date'], sources: [{ from: 'commencement_date', quote: c.quote, page: c.page }] }
      : null;
  }
  if (kind === 'last_signature') {
    const signed = signature?.signed;
    return signed ? { iso: signed.iso, from: ['last_signature'], sources: [signature.clause, signed.source] } : null;
  }
  if (typeof effective?.normalized !== 'string') return null;
  return effective.derived_from
    ? { iso: effective.normalized, from: effective.derived_from, sources: effective.sources ?? [] }
    : {
        iso: effective.normalized,
        from: ['effective_date'],
        sources: [{ from: 'effective_date', quote: effective.quote, page: effective.page }],
      };
}

/**
 * The end date: an expiry the text states, else the start plus the initial term, citing both; null
 * with a reason when the term has no fixed end or its start is not dated (the last signature may
 * still date it: `awaiting`), never a guess.
 */
function endDate(
  lines: readonly Line[],
  out: KeyTerms,
  signature: SignatureStart | null,
  reasons: NullReasons,
): { term: KeyTerm | null; awaiting: AwaitingSignature | null } {
  const stated = dateTerm(lines, END_LABEL, END_INLINE);
  if (stated)
    return {
      term: { ...stated, derived_from: ['expiry_date'], sources: [{ from: 'expiry_date', quote: stated.quote, page: stated.page }] },
      awaiting: null,
    };
  const length = out.term_length;
  const d = length && DURATION.exec(maskAbbreviations(length.value));
  if (!length || !d) {
    const open = sentenceMatching(lines, OPEN_ENDED);
    const renewal = !open && sentenceMatching(lines, THEN_CURRENT);
    if (open) reasons.end_date = `the term has no fixed end: "${squashed(open)}"`;
    else if (renewal)
      reasons.end_date = `the term renews at its end, but the text states neither its start nor its length: "${squashed(renewal)}"`;
    return { term: null, awaiting: null };
  }
  const named = otherStartDate(length.quote);
  const kind = named
    ? 'commencement_date'
    : (startNamedIn(length.quote) ?? (signature && !out.effective_date ? 'last_signature' : 'effective_date'));
  const initial: TermSource = { from: 'initial_term', quote: length.quote, page: length.page };
  const start = startOf(kind, named, lines, out.effective_date, signature);
  if (!start) {
    reasons.end_date = `the term ("${squashed(length.quote)}") runs from ${named ? `the ${named}` : START_NAMES[kind]}, which the text does not date`;
    const awaiting = kind === 'last_signature' || (kind === 'effective_date' && signature && !signature.signed) ? signature : null;
    return { term: null, awaiting: awaiting ? { clause: awaiting.clause, term: { duration: durationOf(d), source: initial } } : null };
  }
  const end = addDuration(start.iso, durationOf(d));
  return {
    term: {
      value: end,
      normalized: end,
      quote: length.quote,
      page: length.page,
      confidence: 0.75,
      confirmed: false,
      derived_from: [...start.from, 'initial_term'],
      sources: [...start.sources, initial],
    },
    awaiting: null,
  };
}

const TERM_LABEL =
  /^(?:#+\s*)?(?:(?:Initial|Subscription|Initial Subscription|SOW|Contract|Agreement|Service|Order)\s+Term|Term|Term of (?:the |this )?(?:Agreement|Contract|NDA|Order|Order Form)|(?:Subscription|Pilot|Initial) Period|Term Length|Duration)$/i;

/** Where a sentence states how long the agreement runs: "for a period of one year", "continues for two years". */
const TERM_INLINE =
  /\b(?:for an? (?:initial )?(?:period|term) of|(?:initial\s+)?term of (?:this|the) (?:agreement|contract) (?:is|shall be|will be)|(?:shall|will)?\s*remain in (?:full )?(?:force|effect)(?: and effect)? for|(?:continues?|continue in effect|lasts?|runs?|remains? in effect) for(?:\s+an?\s+(?:initial\s+)?(?:period|term)\s+of)?)\s+/i;
/** The same with the duration first: "for an initial 12-month period", "for a three-year term". */
const TERM_DURATION_FIRST = new RegExp(String.raw`\bfor\s+(?:an?\s+)?(?:initial\s+)?${DURATION.source}\s+(?:period|term)\b`, 'i');
/** What the term is about: the agreement or one of its terms, not a programme, a licence or a covenant. */
const ABOUT_THE_TERM = /\b(?:agreement|term|contract|engagement|work order|SOW|statement of work|NDA|lease|addendum)\b/i;
/** Periods that run after the agreement or beside it: survival, retention, a covenant's restricted period. */
const OTHER_PERIOD = /\bsurviv\w*|\bretain\w*|\bretention\b|\b(?:following|after)\s+(?:the\s+)?(?:termination|expiration|expiry|end)\b/i;

/** How far after "for a period of" or "continues for" the duration may stand ("one (1) calendar year"). */
const TERM_REACH = 30;

function termLength(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, TERM_LABEL, DURATION, true);
  if (row) return term(row.line, row.m[0], durationDays(row.m), 0.85, row.quote);
  for (const line of lines) {
    if (line.ignored) continue;
    for (const s of sentencesOf(line)) {
      if (!ABOUT_THE_TERM.test(s.plain) || OTHER_PERIOD.test(s.plain)) continue;
      const intro = TERM_INLINE.exec(s.plain);
      const d = intro
        ? DURATION.exec(s.plain.slice(intro.index, intro.index + intro[0].length + TERM_REACH))
        : TERM_DURATION_FIRST.exec(s.plain);
      if (d) return term(line, d[0], durationDays(d), 0.8, s.text.trim());
    }
  }
  return null;
}

const RENEWS =
  /\b(?:automatically (?:renew|extend)\w*|auto-?renew\w*|(?:renew|extend)\w* automatically|(?:will|shall)\s+(?:be\s+)?renew(?:ed)?\s+for\s+(?:an?\s+)?(?:additional|successive|further|subsequent|consecutive)\b|renews\s+for\s+(?:an?\s+)?(?:additional|successive|further|subsequent|consecutive)\b|(?:renews|(?:will|shall)\s+(?:be\s+)?renew(?:ed)?)\b[^.]{0,80}?\bfor\s+(?:another|an?\s+(?:additional|further|new))\s+(?:term|period)\b)/i;
const NOT_RENEWS = /\b(?:not|never)\s+(?:be\s+)?(?:automatically\s+)?renew|\bdoes not automatically renew|\bwill not automatically renew/i;
/** Renewal that needs both parties' consent is not automatic. */
const BY_CONSENT = /\b(?:by|upon|on|with|subject to)\s+(?:the\s+)?mutual\b|\bif\s+(?:both|the)\s+parties\s+(?:so\s+)?agree\b/i;
const NON_RENEWAL_NOTICE = /\b(?:non-renewal notice|notice of non-renewal)\b/i;

function autoRenewal(lines: readonly Line[]): KeyTerm | null {
  const hit = firstMatch(lines, RENEWS);
  if (hit) {
    const quote = sentenceAround(hit.line, hit.m.index);
    const automatic = !NOT_RENEWS.test(quote) && !BY_CONSENT.test(quote);
    return term(hit.line, hit.m[0], automatic, 0.85, quote);
  }
  // A notice period for non-renewal implies renewal.
  const notice = firstMatch(lines, NON_RENEWAL_NOTICE);
  return notice ? term(notice.line, notice.m[0], true, 0.6, sentenceAround(notice.line, notice.m.index)) : null;
}

/** How far after "renew for successive" the renewal's length may stand ("periods of twelve (12) months each"). */
const RENEWAL_LENGTH_REACH = 40;
/** "for" and the words before a renewal's length: "for successive", "for 12-month Renewal Terms", "for another term of". */
const RENEWAL_FOR =
  /\b(?:renew\w*\b(?:\s+automatically)?|automatically\s+extend\w*|extend\w*\s+automatically)[^.]{0,80}?\bfor\s+(?:an?\s+|another\s+)?(?:(?:additional|successive|further|subsequent|consecutive|new)\s+)?(?:(?:renewal\s+)?(?:terms?|periods?)\s+of\s+)?/i;

function renewalTerm(lines: readonly Line[], length: KeyTerm | null): KeyTerm | null {
  const hit = firstMatch(lines, RENEWAL_FOR);
  if (!hit) return null;
  const quote = sentenceAround(hit.line, hit.m.index);
  // The renewal's length follows the words that introduce it; a later duration in the sentence is a notice period.
  const d = DURATION.exec(hit.line.plain.slice(hit.m.index + hit.m[0].length).slice(0, RENEWAL_LENGTH_REACH));
  if (d && d.index === 0) return term(hit.line, d[0], durationDays(d), 0.8, quote);
  // "…renew for additional Subscription Periods": as long as the term it repeats.
  const repeats =
    /\b(?:additional|successive|further|subsequent|consecutive)\s+(Subscription Periods?|Terms?|Renewal Terms?|periods of equal length)/i.exec(
      quote,
    );
  return repeats && length ? term(hit.line, repeats[0], length.normalized, 0.6, quote) : null;
}

/**
 * A period the agreement runs for: the term, or a capitalised name of one ("Subscription Term",
 * "Renewal Period", "Order Form"); a lower-case "period" (a billing or warranty period) is not one.
 */
const PERIOD = String.raw`(?:then[- ])?(?:current\s+)?(?:[A-Z][a-z]+\s+(?:Term|Period)|(?:[Rr]enewal\s+|[Ii]nitial\s+)?[Tt]erm|Order Form)`;
const NOTICE_DAYS = new RegExp(
  String.raw`${COUNT}\s*(?:\(\d+\)\s*)?(?:calendar\s+|business\s+)?days['’]?\s+(?:(?:prior\s+)?(?:written\s+)?notice\s+(?:of\s+non-renewal\s+)?)?(?:before|prior to)\s+(?:the\s+(?:end|expiration|expiry)\s+of\s+the\s+${PERIOD}|the\s+${PERIOD}\s+(?:expires|ends)|the\s+(?:renewal|anniversary|expiration|expiry|end)\s+date\b)`,
);
/** A cover page's non-renewal notice row: "Notice of Non-Renewal: 60 days before the end of the current term". */
const NOTICE_LABEL =
  /^(?:#+\s*)?(?:Notice of Non-Renewal|Non-Renewal Notice(?: Period)?|Renewal Notice(?: Period)?|Notice Period for Non-Renewal)$/i;
const NOTICE_ROW = new RegExp(String.raw`^(?:at least\s+)?${COUNT}\s*(?:calendar\s+|business\s+)?days\b`, 'i');
/**
 * A sentence that starts its line in lower case continues the line before it (a wrapped table cell
 * or PDF line): that line's text, for context; else nothing.
 */
function continued(lines: readonly Line[], line: Line, sentence: string): string {
  if (!/^[a-z]/.test(sentence) || !line.plain.startsWith(sentence)) return '';
  const before = lines[lines.indexOf(line) - 1];
  return before && before.page === line.page ? before.plain : '';
}

/** The notice is one of non-renewal or of ending the agreement, not of a change or a claim. */
const ABOUT_ENDING = /\brenew|\bextend|\bcancel|\bterminat/i;

function noticeDays(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, NOTICE_LABEL, NOTICE_ROW);
  if (row) return term(row.line, row.value.trim(), countOf(row.m[1]!), 0.85, row.quote);
  for (const line of lines) {
    if (line.ignored) continue;
    for (const s of sentencesOf(line)) {
      const m = NOTICE_DAYS.exec(s.plain);
      if (!m || !(ABOUT_ENDING.test(s.plain) || ABOUT_ENDING.test(continued(lines, line, s.plain)))) continue;
      return term(line, m[0], countOf(m[1]!), 0.85, s.text.trim());
    }
  }
  return null;
}

const CONVENIENCE =
  /\bfor any (?:or no )?reason\b|\bwithout cause\b|\bfor convenience\b|\bat any time for any reason\b|\bat any time\b(?=[^.]{0,60}\bnotice\b)/gi;

/** A right to end the contract: "terminate", or "end the employment / agreement / relationship". */
const ENDS = /\bterminat|\bend\s+(?:the\s+|this\s+)?(?:employment|agreement|contract|relationship|engagement)\b/i;
/** A right, not a statement about termination ("survives termination for any reason"). */
const GRANT = /\b(?:may|can|is entitled to|(?:has|have|reserves?) the right to|right to|terminable)\b/i;
/** Ending someone's use of one feature or offering, not the agreement. */
const ENDS_A_USE = /\bterminat\w*\s+(?:\w+['’]s\s+|its\s+|their\s+|the\s+)?(?:use of|access to|participation in)\b/i;
function terminationForConvenience(lines: readonly Line[]): KeyTerm | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.ignored) continue;
    for (const m of line.plain.matchAll(CONVENIENCE)) {
      // The right to terminate is in the sentence, or in the clause whose list this line is an item of.
      const quote = sentenceAround(line, m.index);
      const intro = lines
        .slice(Math.max(0, i - 4), i)
        .reverse()
        .find((l) => /:\s*$/.test(l.text));
      const right = [quote, intro?.text ?? ''].find((t) => ENDS.test(t) && GRANT.test(t));
      if (right && !ENDS_A_USE.test(right)) return term(line, m[0], true, 0.8, quote);
    }
  }
  return null;
}

const PLACE_NAME = String.raw`(?:England and Wales|[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2})`;
const LAW = new RegExp(
  String.raw`\b(?:laws? of|governed by the laws? of)\s+((?:the\s+)?(?:State|Commonwealth|Province|Republic|Kingdom)\s+of\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?|${PLACE_NAME})` +
    // "governed by New York law", "construed under English law"
    String.raw`|\b(?:governed|construed|interpreted)\s+(?:by|under|in accordance with)\s+(?:the\s+)?(${PLACE_NAME})\s+laws?\b` +
    // "Delaware law governs this Agreement"
    String.raw`|\b(${PLACE_NAME})\s+law\s+(?:governs|shall govern|will govern|applies to)\b`,
  'g',
);
/** Capitalised words that follow "governed by" or "courts of" without being places: parts of a document, defined terms. */
const NOT_A_PLACE =
  /\b(Governing|Member|Applicable|United States Department|Agreement|Section|Article|Clause|Exhibit|Schedule|Appendix|Annex|Attachment|Order|Terms?|Policy|Documentation|Cover|Part|Paragraph)\b/;
/** A place followed by a number is a reference ("Section 22.5"). */
const NUMBERED = /^\s*\d/;

/**
 * A cover page's governing-law row: a place, or "The laws of the State of …". Case-insensitive,
 * so a word already covers "and" (an alternative for it made a failing row exponential).
 */
const LAW_ROW = /^(?:the laws of\s+)?(?:the\s+)?(?:(?:State|Commonwealth|Province)\s+of\s+)?([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\.?$/i;

function governingLaw(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, /^(?:#+\s*)?Governing Law$/i, LAW_ROW);
  if (row && !NOT_A_PLACE.test(row.m[1]!) && /^[A-Z]/.test(row.m[1]!)) {
    const place = row.m[1]!.replace(/^(?:State|Commonwealth|Province)\s+of\s+/i, '');
    return term(
      row.line,
      row.value
        .trim()
        .replace(/^the laws of\s+/i, '')
        .replace(/\.$/, ''),
      place,
      0.85,
      row.quote,
    );
  }
  for (const line of lines) {
    if (line.ignored) continue;
    for (const m of line.plain.matchAll(LAW)) {
      const written = (m[1] ?? m[2] ?? m[3])!;
      if (NOT_A_PLACE.test(written) || NUMBERED.test(line.plain.slice(m.index + m[0].length))) continue;
      const place = written.replace(/^(?:the\s+)?(?:State|Commonwealth|Province|Republic|Kingdom)\s+of\s+/, '');
      return term(line, written, place, 0.85, sentenceAround(line, m.index));
    }
  }
  return null;
}

/** A venue: capitalised words ("San Mateo County", "England and Wales"), a district "of" a state, then ", State". */
const VENUE_PLACE = String.raw`((?:[A-Z][a-z]+\s*)+(?:and\s+[A-Z][a-z]+\s*)?(?:of\s+(?:[A-Z][a-z]+\s*)+)?(?:,\s*(?:[A-Z][a-z]+\s*)+)?)`;
const VENUE = new RegExp(
  // "the courts located in …", "a tribunal of competent jurisdiction located in or near …"
  String.raw`\b(?:courts?|tribunals?|forums?)\b[^.\n]{0,80}?\b(?:located (?:in|within)(?: or near)?|sitting in|seated in|of|in)\s+(?:the\s+)?${VENUE_PLACE}` +
    // "any dispute will be adjudicated in …", "claims shall be brought exclusively in …"
    String.raw`|\b(?:disputes?|claims?|actions?|proceedings?|suits?|litigation)\b[^.\n]{0,80}?\b(?:will|shall|must|are to|is to)\s+be\s+(?:exclusively\s+|only\s+)?(?:adjudicated|heard|resolved|litigated|brought|filed|venued|tried)\s+(?:exclusively\s+|only\s+)?in\s+(?:the\s+)?${VENUE_PLACE}`,
  'g',
);

/** A cover page's venue row: "Venue: Travis County, Texas", "Chosen Courts: the state courts of Cook County". */
const VENUE_LABEL = /^(?:#+\s*)?(?:Venue|Dispute Venue|Jurisdiction|Courts|Chosen Courts|Forum|Place of Jurisdiction)$/i;
// Courts of a place, or a place a court sits in ("… County", "City of …", "Austin, Texas"): not any capitalised words, which a cell below the label may be (another label).
const VENUE_ROW = new RegExp(
  String.raw`^(?:(?:the\s+)?(?:exclusive\s+)?(?:(?:state|federal|state and federal|competent)\s+)?courts?\s+(?:located\s+)?(?:of|in)\s+(?:the\s+)?${VENUE_PLACE}|(?=[^.]*(?:\b(?:County|City|District|Borough|Parish)\b|,\s*[A-Z]))(?:the\s+)?${VENUE_PLACE})\.?$`,
);

function disputeVenue(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, VENUE_LABEL, VENUE_ROW);
  const written = row && (row.m[1] ?? row.m[2])!;
  if (row && written && !NOT_A_PLACE.test(written)) {
    const place = written.trim();
    return term(row.line, place, place, 0.85, row.quote);
  }
  for (const line of lines) {
    if (line.ignored) continue;
    for (const m of line.plain.matchAll(VENUE)) {
      const written = (m[1] ?? m[2])!;
      if (NOT_A_PLACE.test(written) || NUMBERED.test(line.plain.slice(m.index + m[0].length))) continue;
      const place = written.trim();
      return term(line, place, place, 0.8, sentenceAround(line, m.index));
    }
  }
  return null;
}

const PAYMENT = new RegExp(
  String.raw`\b(?:pay|paid|payable|due)\b[^.,;\n]{0,80}?\bwithin\s+${COUNT}\s*(?:\(\d+\)\s*)?(?:calendar\s+|business\s+)?days\b` +
    // "invoices are due net 45 days", "payable net thirty (30)"
    String.raw`|\b(?:pay|paid|payable|due|invoices?)\b[^.,;\n]{0,40}?\bnet\s+${COUNT}`,
  'i',
);
/** A cover page's payment row: "Net 30", "Invoices due within 30 days". */
const PAYMENT_ROW = new RegExp(String.raw`^(?:net\s+${COUNT}|[^.]{0,60}?\bwithin\s+${COUNT}\s*(?:calendar\s+|business\s+)?days)\b`, 'i');

function paymentTerms(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, /^(?:#+\s*)?(?:Payment Terms?|Payment)$/i, PAYMENT_ROW);
  if (row) return term(row.line, row.value.trim(), countOf((row.m[1] ?? row.m[2])!), 0.85, row.quote);
  const hit = firstMatch(lines, PAYMENT);
  if (!hit) return null;
  const n = countOf((hit.m[1] ?? hit.m[2])!);
  const quote = sentenceAround(hit.line, hit.m.index);
  return term(hit.line, quote.replace(/\.$/, ''), n, 0.85, quote);
}

const CAP_VALUE =
  /(?:(\d+(?:\.\d+)?)x the fees\b[^.]{0,200}?\b(\d+)[- ]month|\$\s?(\d[\d,]*(?:\.\d+)?)|\b(USD|EUR|GBP)\s?(\d[\d,]*(?:\.\d+)?))/i;
/** A sentence that caps liability: "… liability … will not exceed", "in no event will … liability … exceed", "… is limited to". */
const CAP_SENTENCE = /\bliab\w*\b[^.]{0,200}?\b(?:exceed|be more than|limited to|capped at)\b/i;
/** A cap measured in fees: "the fees Customer paid … in the 12 months preceding the claim", "amounts paid or payable". */
const FEES_PAID = /^[^.]{0,40}?\b(?:amounts?|fees?|sums?|charges)\b[^.]{0,120}?\b(?:paid|payable)\b/i;
const CAP_MONTHS = /\b(\d{1,3}|three|six|nine|twelve|eighteen|twenty-four)\s*(?:\(\d+\)\s*)?[- ]?months?\b/i;
/** A cap stated by reference to a term defined elsewhere: "will not exceed the General Cap". */
const DEFINED_CAP = /^\s*(?:the\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3})\b/;
/** How far after "exceed" or "limited to" the amount may stand. */
const CAP_REACH = 60;
/**
 * A cap on one kind of claim or offering, not on the agreement: "For Beta Previews, …", "its liability
 * for Trials will not exceed …", "for services provided free of charge".
 */
const SPECIAL_CAP =
  /^\W*(?:[Ff]or|[Ww]ith respect to|[Ii]n respect of|[Aa]s to)\b|\bliab\w*\s+(?:for|with respect to|in respect of)\s+(?!any\b|all\b)[A-Z]|\bfree of charge\b/;

/** The cap's typed form from the words after its verb; null when the cap is in fees over no stated period. */
function capAmount(after: string): { normalized: unknown } | null {
  const fixed = CAP_VALUE.exec(after.slice(0, CAP_REACH));
  // A multiple of fees ("2x the fees … 12-month") is typed as written; other fees caps by their period.
  if (fixed && (fixed[1] || !FEES_PAID.test(after))) return { normalized: moneyOf(fixed) };
  if (!FEES_PAID.test(after)) return null;
  const months = CAP_MONTHS.exec(after);
  const n = months && (NUMBER_WORDS[months[1]!.toLowerCase()] ?? Number(months[1]));
  return { normalized: n ? { fees_multiple: 1, months: n } : null };
}

const moneyOf = (m: RegExpExecArray) =>
  m[1]
    ? { fees_multiple: Number(m[1]), months: Number(m[2]) }
    : { amount: Number(unmask(m[3] ?? m[5]!).replace(/,/g, '')), currency: m[4]?.toUpperCase() ?? 'USD' };

/**
 * The definition of a defined term: ""General Cap" means …" on a line of its own. (`\W*\s`
 * matches what `\W*\s+` would, without trying every split of a long run of spaces.)
 */
function definitionOf(lines: readonly Line[], name: string): { line: Line; body: string } | null {
  const re = new RegExp(String.raw`^\W*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\W*\s(?:means|shall mean|is)\s+`);
  for (const line of lines) {
    const m = !line.ignored && re.exec(line.plain);
    if (m) return { line, body: line.plain.slice(m[0].length) };
  }
  return null;
}

/** Names of defined caps ("the General Cap") looked up at most. */
const MAX_DEFINED_CAPS = 8;

const capText = (quote: string) => quote.replace(/^[[(]\s*[xX]\s*[\])]\s*/, '').replace(/\.(\**)$/, '$1');

/** The cap on the agreement's liability: a cover page's row, else the first cap sentence that is not a special cap. */
function liabilityCap(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, /^(?:General Cap Amount|Liability Cap|Cap on Liability|Limitation of Liability)$/i, CAP_VALUE);
  if (row) return term(row.line, capText(row.value.trim()), moneyOf(row.m), 0.85, row.quote);
  // Each lookup reads every line: once per name, and for a few names only (a contract defines one or two caps).
  const definitions = new Map<string, ReturnType<typeof definitionOf>>();
  const lookUp = (name: string) => {
    if (!definitions.has(name) && definitions.size < MAX_DEFINED_CAPS) definitions.set(name, definitionOf(lines, name));
    return definitions.get(name) ?? null;
  };
  for (const line of lines) {
    if (line.ignored) continue;
    for (const s of sentencesOf(line)) {
      const m = CAP_SENTENCE.exec(s.plain);
      if (!m || SPECIAL_CAP.test(s.plain)) continue;
      const after = s.plain.slice(m.index + m[0].length);
      const amount = capAmount(after);
      if (amount) return term(line, capText(s.text.trim()), amount.normalized, 0.75, s.text.trim());
      const ref = DEFINED_CAP.exec(after);
      const defined = ref && lookUp(ref[1]!);
      const value = defined && capAmount(defined.body);
      if (defined && value) {
        const quote = sentenceAround(defined.line, 0);
        return term(defined.line, capText(quote), value.normalized, 0.7, quote);
      }
    }
  }
  return null;
}

/** What the rules read at most, and how long they may take (platform/config.ts: KEY_TERMS_*). */
export interface RuleLimits {
  /** Characters of the text, pages in order; the rest is not read. */
  maxTextChars: number;
  /** Characters of one line read at a time: a longer line is read in pieces (piecesOf). */
  maxLineChars: number;
  /** Once spent, the keys not yet read are left unread: a partial answer rather than a long wait. */
  budgetMs: number;
}

export interface RulesAnswer {
  terms: KeyTerms;
  /** Why a key is null though the text speaks of it (a term without a fixed end, a start not dated). */
  reasons: NullReasons;
  /** The start is the last signature, which the text does not date: the service fills it from its own signature request. */
  awaitingSignature: AwaitingSignature | null;
  /** Keys whose rules did not run within the budget (null in `terms`). */
  unread: KeyTermName[];
  /** The text was longer than `maxTextChars`; only its beginning was read. */
  truncated: boolean;
}

/** The pages up to `maxChars` characters in all. */
function firstChars(pages: readonly Page[], maxChars: number): { pages: Page[]; truncated: boolean } {
  const out: Page[] = [];
  let left = maxChars;
  for (const p of pages) {
    if (p.text.length > left) return { pages: [...out, { page: p.page, text: p.text.slice(0, left) }], truncated: true };
    out.push(p);
    left -= p.text.length;
  }
  return { pages: out, truncated: false };
}

/**
 * The key terms the pages state, null where they are silent; each rule takes time linear in the
 * text. Runs in an offload thread (keyTermRulesTask), never on an event loop that serves requests.
 */
export function readKeyTermsByRules({ pages, limits }: { pages: readonly Page[]; limits: RuleLimits }): RulesAnswer {
  const deadline = Date.now() + limits.budgetMs;
  const text = firstChars(pages, limits.maxTextChars);
  const lines = linesOf(text.pages, limits.maxLineChars);
  const out = emptyTerms();
  const reasons: NullReasons = {};
  let awaitingSignature: AwaitingSignature | null = null;
  let signature: SignatureStart | null = null;
  const rules: Array<[KeyTermName, () => KeyTerm | null]> = [
    ['parties', () => parties(lines)],
    ['effective_date', () => effectiveDate(lines, (signature = signatureStart(lines)))],
    ['term_length', () => termLength(lines)],
    [
      'end_date',
      () => {
        const end = endDate(lines, out, signature, reasons);
        awaitingSignature = end.awaiting;
        return end.term;
      },
    ],
    ['auto_renewal', () => autoRenewal(lines)],
    ['renewal_term', () => (out.auto_renewal?.normalized === true ? renewalTerm(lines, out.term_length) : null)],
    ['non_renewal_notice_days', () => noticeDays(lines)],
    ['termination_for_convenience', () => terminationForConvenience(lines)],
    ['governing_law', () => governingLaw(lines)],
    ['dispute_venue', () => disputeVenue(lines)],
    ['payment_terms', () => paymentTerms(lines)],
    ['liability_cap', () => liabilityCap(lines)],
  ];
  const unread: KeyTermName[] = [];
  for (const [key, rule] of rules) {
    if (Date.now() > deadline) unread.push(key);
    else out[key] = rule();
  }
  return { terms: out, reasons, awaitingSignature, unread, truncated: text.truncated };
}

export const keyTermRulesTask = offloadTask<typeof readKeyTermsByRules>(__filename, 'readKeyTermsByRules');

/** Every quote must be text of the pages: a term whose quote is not found there is dropped. */
export function keepVerbatim(terms: KeyTerms, pages: readonly Page[]): KeyTerms {
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  const texts = new Map(pages.map((p) => [p.page, squash(p.text)]));
  const out = emptyTerms();
  for (const [k, t] of Object.entries(terms) as Array<[KeyTermName, KeyTerm | null]>) {
    out[k] = t && texts.get(t.page)?.includes(squash(t.quote)) ? t : null;
  }
  return out;
}
