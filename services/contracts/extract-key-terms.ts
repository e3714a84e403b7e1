/**
 * Key terms by rules (the local provider): each term is looked for where contracts state it,
 * in a cover page's labelled rows ("Governing Law" then "The laws of …") and in clause
 * sentences ("…within 30 days…"), and quoted verbatim with its page. Text a form leaves
 * unselected (an unticked "[  ]" or "(  )" option) and bracketed drafting notes are not the
 * contract's terms and are skipped. A term the text does not state is null.
 */
import type { Page } from '../documents/chunking';
import { emptyTerms, type KeyTerm, type KeyTermName, type KeyTerms } from './key-terms.shared';

interface Line {
  text: string;
  page: number;
  /** Offset of `text` in its page's text. */
  at: number;
  /** Unselected or a drafting note: not a term of the contract. */
  ignored: boolean;
}

const UNTICKED = /^(\[\s+\]|\(\s+\))/;
/** A bracketed note or example ("[Drafting note: …]"), but not a ticked box "[ x ]". */
const BRACKETED = /\[(?!\s*[xX✓]\s*\])[^\]]*\]/g;

/** The page's lines, each marked ignored when it is an unselected option or inside a bracketed note. */
function linesOf(pages: readonly Page[]): Line[] {
  const out: Line[] = [];
  for (const { page, text } of pages) {
    const notes: Array<[number, number]> = [...text.matchAll(BRACKETED)].map((m) => [m.index, m.index + m[0].length]);
    let at = 0;
    for (const raw of text.split('\n')) {
      const lead = raw.length - raw.trimStart().length;
      const t = raw.trim();
      const start = at + lead;
      const inNote = notes.some(([a, b]) => start >= a && start + t.length <= b);
      if (t) out.push({ text: t, page, at: start, ignored: UNTICKED.test(t) || inNote });
      at += raw.length + 1;
    }
  }
  return out;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DATE =
  /\b(?:(January|February|March|April|May|June|July|August|September|October|November|December)\s+(\d{1,2}),?\s+(\d{4})|(\d{1,2})\s+(January|February|March|April|May|June|July|August|September|October|November|December),?\s+(\d{4})|(\d{4})-(\d{2})-(\d{2}))\b/;

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
  thirty: 30,
  sixty: 60,
  ninety: 90,
};
const DURATION =
  /\b(\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|thirty|sixty|ninety)(?:\s*\(\d+\))?[\s-]+(day|week|month|year)s?\b/i;

/** A duration in days: months count 365/12 days, years 365. */
function durationDays(m: RegExpExecArray): number {
  const n = NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1]);
  const unit = m[2]!.toLowerCase();
  return Math.round(n * (unit === 'day' ? 1 : unit === 'week' ? 7 : unit === 'month' ? 365 / 12 : 365));
}

/** The sentence of `line` around `index` (a sentence ends at . ! ? before white space). */
function sentenceAround(line: string, index: number): string {
  const before = line.slice(0, index);
  const start = Math.max(...[...before.matchAll(/[.!?]\s+/g)].map((m) => m.index + m[0].length), 0);
  const end = /[.!?](\s|$)/.exec(line.slice(index));
  return line.slice(start, end ? index + end.index + 1 : line.length).trim();
}

const term = (line: Line, value: string, normalized: unknown, confidence: number, quote = line.text): KeyTerm => ({
  value: value.trim(),
  normalized,
  quote,
  page: line.page,
  confidence,
  confirmed: false,
});

/** The first line (not ignored) where `re` matches, with the match. */
function firstMatch(lines: readonly Line[], re: RegExp): { line: Line; m: RegExpExecArray } | null {
  for (const line of lines) {
    if (line.ignored) continue;
    const m = re.exec(line.text);
    if (m) return { line, m };
  }
  return null;
}

/** A cover page's row: the first selected line within a few lines after a label line that `re` matches. */
function labelled(lines: readonly Line[], label: RegExp, value: RegExp): { line: Line; m: RegExpExecArray } | null {
  for (let i = 0; i < lines.length; i++) {
    if (!label.test(lines[i]!.text)) continue;
    for (const next of lines.slice(i + 1, i + 5)) {
      if (next.ignored) continue;
      const m = value.exec(next.text);
      if (m) return { line: next, m };
    }
  }
  return null;
}

const ENTITY = String.raw`[A-Z][\w&'.-]*(?:\s+(?:[A-Z][\w&'.-]*|of|and|&))*?(?:,?\s+(?:Inc|LLC|L\.L\.C|Ltd|Limited|Corp|Corporation|Co|GmbH|plc|LLP|LP|AG|BV|SA|SAS)\.?)?`;
/** What may follow a party's name before "and": its description and defined role (", a Delaware corporation (the "Company")"). */
const DESCRIBED = String.raw`(?:,\s+an?\s+[^,()\n]{1,80})?(?:\s*\([^)\n]{1,60}\))?,?`;
const BETWEEN = new RegExp(
  String.raw`\bbetween\s+(${ENTITY})${DESCRIBED}\s+and\s+(${ENTITY})(?=\s*(?:[.,;(]|\(|$)|\s+(?:dated|effective|as of)\b)`,
);
/** The roles a party signs or is named under on a cover page. */
const ROLE = String.raw`(?:Provider|Customer|Partner|Company|Client|Vendor|Supplier|Licensor|Licensee|Buyer|Seller|Consultant|Contractor|Employer|Employee|Founder|Party(?:\s+\d)?(?:\s+Name)?)`;
/** A signature line naming a party: "PROVIDER: Northwind Cloud, Inc.", "Party Name: Tailspin Toys, Inc.". */
const SIGNATORY = new RegExp(String.raw`^${ROLE}\s*:\s*([A-Z][^\t{}]{1,120}?)\s*$`, 'i');
/** A cover page's row naming a party: the role alone on its line, the name on the next. */
const ROLE_LABEL = new RegExp(String.raw`^${ROLE}$`, 'i');
const NAME_VALUE = /^[A-Z][^\t{}[\]:]{1,120}$/;
/** Placeholder-like names a form leaves ("Provider", "{company_name}"), and a form's field names. */
const GENERIC_PARTY = /^(provider|customer|partner|company|the parties|signature|name|title|date|by|print name|signatory name)$/i;

/** A line that reads as a sentence, not a name: it ends with a stop after a lower-case word. */
const SENTENCE_LIKE = /\b[a-z]{2,}[.;:]$/;

function parties(lines: readonly Line[]): KeyTerm | null {
  const between = firstMatch(lines, BETWEEN);
  if (between) {
    const names = [between.m[1]!, between.m[2]!].map((n) =>
      n.replace(/[.,]$/, (c) => (/\b(Inc|Ltd|Corp|Co)$/.test(n.slice(0, -1)) ? c : '')).trim(),
    );
    if (!names.some((n) => GENERIC_PARTY.test(n)))
      return term(between.line, `${names[0]} and ${names[1]}`, names, 0.85, sentenceAround(between.line.text, between.m.index));
  }
  const signed = lines
    .filter((l) => !l.ignored && SIGNATORY.test(l.text))
    .map((l) => ({ line: l, name: SIGNATORY.exec(l.text)![1]!.trim() }));
  const rows = lines.flatMap((l, i) => {
    const next = lines[i + 1];
    return !l.ignored && ROLE_LABEL.test(l.text) && next && !next.ignored && NAME_VALUE.test(next.text) && !SENTENCE_LIKE.test(next.text)
      ? [{ line: next, name: next.text }]
      : [];
  });
  const named = [...signed, ...rows].filter((s) => !GENERIC_PARTY.test(s.name) && !ROLE_LABEL.test(s.name));
  const unique = [...new Map(named.map((s) => [s.name, s])).values()];
  if (unique.length < 2) return null;
  const [a, b] = unique;
  // Quoted from the first signature line; the second party's line is cited by its own text in value.
  return term(
    a!.line,
    `${a!.name} and ${b!.name}`,
    unique.map((s) => s.name),
    0.75,
  );
}

function dateTerm(lines: readonly Line[], labels: RegExp, inline: RegExp[]): KeyTerm | null {
  const row = labelled(lines, labels, DATE);
  if (row) {
    const iso = isoDate(row.m);
    if (iso) return term(row.line, row.m[0], iso, 0.9);
  }
  for (const re of inline) {
    const hit = firstMatch(lines, re);
    const d = hit && DATE.exec(hit.line.text.slice(hit.m.index));
    const iso = d && isoDate(d);
    if (hit && d && iso) return term(hit.line, d[0], iso, 0.8, sentenceAround(hit.line.text, hit.m.index));
  }
  return null;
}

const TERM_LABEL =
  /^(?:#+\s*)?(?:Initial Term|Term|Term of (?:the |this )?(?:Agreement|Contract|NDA)|Subscription Period|Pilot Period|SOW Term|Contract Term|Agreement Term|Term Length|Duration)$/i;

function termLength(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, TERM_LABEL, DURATION);
  if (row) return term(row.line, row.m[0], durationDays(row.m), 0.85);
  const hit = firstMatch(lines, /\b(?:for an? (?:initial )?(?:period|term) of|shall remain in (?:full )?(?:force and )?effect for)\s+/i);
  const d = hit && DURATION.exec(hit.line.text.slice(hit.m.index));
  return hit && d ? term(hit.line, d[0], durationDays(d), 0.8, sentenceAround(hit.line.text, hit.m.index)) : null;
}

const RENEWS = /\b(?:automatically renew\w*|auto-?renew\w*|renew\w* automatically)\b/i;
const NOT_RENEWS = /\b(?:not|never)\s+(?:be\s+)?(?:automatically\s+)?renew|\bdoes not automatically renew|\bwill not automatically renew/i;
const NON_RENEWAL_NOTICE = /\b(?:non-renewal notice|notice of non-renewal)\b/i;

function autoRenewal(lines: readonly Line[]): KeyTerm | null {
  const hit = firstMatch(lines, RENEWS);
  if (hit) {
    const quote = sentenceAround(hit.line.text, hit.m.index);
    const negated = NOT_RENEWS.test(quote);
    return term(hit.line, hit.m[0], !negated, 0.85, quote);
  }
  // A notice period for non-renewal implies renewal.
  const notice = firstMatch(lines, NON_RENEWAL_NOTICE);
  return notice ? term(notice.line, notice.m[0], true, 0.6, sentenceAround(notice.line.text, notice.m.index)) : null;
}

function renewalTerm(lines: readonly Line[], length: KeyTerm | null): KeyTerm | null {
  const hit = firstMatch(lines, /\brenew\w*\s+for\s+(?:an?\s+)?(?:additional|successive|further|subsequent)\s+/i);
  if (!hit) return null;
  const quote = sentenceAround(hit.line.text, hit.m.index);
  const d = DURATION.exec(quote);
  if (d) return term(hit.line, d[0], durationDays(d), 0.8, quote);
  // "…renew for additional Subscription Periods": as long as the term it repeats.
  const repeats =
    /\b(?:additional|successive|further|subsequent)\s+(Subscription Periods?|Terms?|Renewal Terms?|periods of equal length)/i.exec(quote);
  return repeats && length ? term(hit.line, repeats[0], length.normalized, 0.6, quote) : null;
}

const NOTICE_DAYS =
  /\b(\d{1,3}|thirty|sixty|ninety)\s*(?:\(\d+\)\s*)?(?:calendar\s+|business\s+)?days?\s+(?:before|prior to)\s+the\s+(?:end|expiration|expiry)\s+of\s+the\s+(?:then[- ])?(?:current\s+)?(?:Subscription Period|term|Term|Renewal Term|Initial Term|Order Form)/i;

function noticeDays(lines: readonly Line[]): KeyTerm | null {
  const hit = firstMatch(lines, NOTICE_DAYS);
  if (!hit) return null;
  const n = NUMBER_WORDS[hit.m[1]!.toLowerCase()] ?? Number(hit.m[1]);
  return term(hit.line, hit.m[0], n, 0.85, sentenceAround(hit.line.text, hit.m.index));
}

const CONVENIENCE = /\bfor any (?:or no )?reason\b|\bwithout cause\b|\bfor convenience\b|\bat any time for any reason\b/i;

/** A right to end the contract: "terminate", or "end the employment / agreement / relationship". */
const ENDS = /\bterminat|\bend\s+(?:the\s+|this\s+)?(?:employment|agreement|contract|relationship|engagement)\b/i;

function terminationForConvenience(lines: readonly Line[]): KeyTerm | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.ignored) continue;
    const m = CONVENIENCE.exec(line.text);
    if (!m) continue;
    // The right to terminate is in the sentence, or in the clause whose list this line is an item of.
    const quote = sentenceAround(line.text, m.index);
    const intro = lines
      .slice(Math.max(0, i - 4), i)
      .reverse()
      .find((l) => /:\s*$/.test(l.text));
    if (ENDS.test(quote) || (intro && ENDS.test(intro.text))) return term(line, m[0], true, 0.8, quote);
  }
  return null;
}

const LAW =
  /\b(?:laws of|governed by the laws? of|governed by)\s+((?:the\s+)?(?:State|Commonwealth|Province|Republic|Kingdom)\s+of\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?|(?:England and Wales|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))/;
const NOT_A_PLACE = /\b(Governing|Member|Applicable|United States Department|Agreement)\b/;

/** A cover page's governing-law row: a place, or "The laws of the State of …". */
const LAW_ROW = /^(?:the laws of\s+)?(?:the\s+)?(?:(?:State|Commonwealth|Province)\s+of\s+)?([A-Z][a-z]+(?:\s+(?:[A-Z][a-z]+|and))*)\.?$/i;

function governingLaw(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, /^(?:#+\s*)?Governing Law$/i, LAW_ROW);
  if (row && !NOT_A_PLACE.test(row.m[1]!) && /^[A-Z]/.test(row.m[1]!))
    return term(row.line, row.line.text.replace(/^the laws of\s+/i, '').replace(/\.$/, ''), row.m[1]!, 0.85);
  for (const line of lines) {
    if (line.ignored) continue;
    const m = LAW.exec(line.text);
    if (!m || NOT_A_PLACE.test(m[1]!)) continue;
    const place = m[1]!.replace(/^(?:the\s+)?(?:State|Commonwealth|Province|Republic|Kingdom)\s+of\s+/, '');
    return term(line, m[1]!, place, 0.85, sentenceAround(line.text, m.index));
  }
  return null;
}

const VENUE =
  /\bcourts?\b[^.\n]{0,80}?\b(?:located in|sitting in|of|in)\s+((?:[A-Z][a-z]+\s*)+(?:County|Parish)?(?:,\s*(?:[A-Z][a-z]+\s*)+)?)/;

function disputeVenue(lines: readonly Line[]): KeyTerm | null {
  for (const line of lines) {
    if (line.ignored) continue;
    const m = VENUE.exec(line.text);
    if (!m || NOT_A_PLACE.test(m[1]!) || /^(?:the|this)$/i.test(m[1]!.trim())) continue;
    const place = m[1]!.trim();
    return term(line, place, place, 0.8, sentenceAround(line.text, m.index));
  }
  return null;
}

const PAYMENT =
  /\b(?:pay|paid|payable|due)\b[^.,;\n]{0,80}?\bwithin\s+(\d{1,3}|thirty|sixty|ninety|fifteen|ten)\s*(?:\(\d+\)\s*)?(?:calendar\s+|business\s+)?days\b/i;

function paymentTerms(lines: readonly Line[]): KeyTerm | null {
  const hit = firstMatch(lines, PAYMENT);
  if (!hit) return null;
  const n = NUMBER_WORDS[hit.m[1]!.toLowerCase()] ?? Number(hit.m[1]);
  const quote = sentenceAround(hit.line.text, hit.m.index);
  return term(hit.line, quote.replace(/\.$/, ''), n, 0.85, quote);
}

const CAP_VALUE = /(?:(\d+(?:\.\d+)?)x the fees\b[^.]*?\b(\d+)[- ]month|\$\s?(\d[\d,]*(?:\.\d+)?)|\b(USD|EUR|GBP)\s?(\d[\d,]*(?:\.\d+)?))/i;

function liabilityCap(lines: readonly Line[]): KeyTerm | null {
  const row = labelled(lines, /^(?:General Cap Amount|Liability Cap|Cap on Liability|Limitation of Liability)$/i, CAP_VALUE);
  const hit =
    row ??
    firstMatch(
      lines,
      new RegExp(
        String.raw`\bliab\w*\b[^.]{0,120}\b(?:shall not exceed|will not exceed|not be more than|limited to)\b[^.]{0,40}?` +
          CAP_VALUE.source,
        'i',
      ),
    );
  if (!hit) return null;
  const m = CAP_VALUE.exec(hit.line.text.slice(row ? 0 : hit.m.index)) ?? hit.m;
  const normalized = m[1]
    ? { fees_multiple: Number(m[1]), months: Number(m[2]) }
    : { amount: Number((m[3] ?? m[5])!.replace(/,/g, '')), currency: m[4]?.toUpperCase() ?? 'USD' };
  const quote = row ? hit.line.text : sentenceAround(hit.line.text, hit.m.index);
  return term(hit.line, quote.replace(/^[[(]\s*[xX]\s*[\])]\s*/, '').replace(/\.$/, ''), normalized, row ? 0.85 : 0.75, quote);
}

/** The key terms the pages state; null where they are silent. */
export function extractKeyTermsByRules(pages: readonly Page[]): KeyTerms {
  const lines = linesOf(pages);
  const out = emptyTerms();
  const set = (k: KeyTermName, t: KeyTerm | null) => (out[k] = t);
  set('parties', parties(lines));
  set(
    'effective_date',
    dateTerm(lines, /^(?:#+\s*)?(?:[\w ]*Effective Date|Order Date|Start Date|Commencement Date)$/i, [
      /\bEffective Date (?:of|is)\b/i,
      /\beffective as of\b/i,
      /\b(?:made|entered into)\s+(?:and entered into\s+)?as of\b/i,
      /\bthis (?:agreement|contract)\b[^.]{0,30}?\bdated\b/i,
    ]),
  );
  set('term_length', termLength(lines));
  set(
    'end_date',
    dateTerm(lines, /^(?:#+\s*)?(?:End Date|Expiration Date|Expiry Date|Termination Date)$/i, [
      /\b(?:expires? on|terminates? on|end(?:s)? on|until)\s+/i,
    ]),
  );
  set('auto_renewal', autoRenewal(lines));
  set('renewal_term', out.auto_renewal?.normalized === true ? renewalTerm(lines, out.term_length) : null);
  set('non_renewal_notice_days', noticeDays(lines));
  set('termination_for_convenience', terminationForConvenience(lines));
  set('governing_law', governingLaw(lines));
  set('dispute_venue', disputeVenue(lines));
  set('payment_terms', paymentTerms(lines));
  set('liability_cap', liabilityCap(lines));
  return out;
}

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
