/**
 * The paragraphs of a WordprocessingML part (word/document.xml, a header or footer) as text,
 * in document order, table cells included: each `w:p`'s `w:t` texts joined as Word shows them
 * (a tab as \t, a line break as \n), whatever runs Word split them into. Deleted text
 * (`w:delText`) is not text; field instructions (`w:instrText`) are not either.
 */

export interface DocxParagraph {
  /** 1-based, in document order. */
  index: number;
  text: string;
  /** The paragraph style id (`w:pStyle`), e.g. Heading1, or null. */
  style: string | null;
  /** Whether it sits in a table cell. */
  inTable: boolean;
}

const decode = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-f]+|#\d+);/gi, (_m, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (named[e.toLowerCase()]) return named[e.toLowerCase()]!;
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });

// One token per element Word uses for text: text runs, tabs, breaks, paragraph and table edges.
const TOKEN =
  /<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:t(?:\s[^>]*)?\/>|<w:tab\/>|<w:(?:br|cr)(?:\s[^>]*)?\/>|<w:p[\s>]|<\/w:p>|<w:p\/>|<w:pStyle w:val="([^"]*)"|<w:tc[\s>]|<\/w:tc>/g;

/** Every paragraph of the part, with its text. */
export function docxParagraphs(xml: string): DocxParagraph[] {
  const out: DocxParagraph[] = [];
  let cells = 0;
  let current: DocxParagraph | null = null;
  for (const m of xml.matchAll(TOKEN)) {
    const token = m[0];
    if (m[1] !== undefined) {
      if (current) current.text += decode(m[1]);
    } else if (token.startsWith('<w:tab')) {
      if (current) current.text += '\t';
    } else if (token.startsWith('<w:br') || token.startsWith('<w:cr')) {
      if (current && !/w:type="(page|column)"/.test(token)) current.text += '\n';
    } else if (token === '<w:p/>') {
      out.push({ index: out.length + 1, text: '', style: null, inTable: cells > 0 });
    } else if (token.startsWith('<w:p')) {
      current = { index: out.length + 1, text: '', style: null, inTable: cells > 0 };
      out.push(current);
    } else if (token === '</w:p>') {
      current = null;
    } else if (m[2] !== undefined) {
      if (current) current.style = m[2];
    } else if (token.startsWith('<w:tc')) {
      cells++;
    } else if (token === '</w:tc>') {
      cells--;
    }
  }
  return out;
}

/** The text of a part: its paragraphs one per line, empty ones kept (they separate sections). */
export const docxText = (xml: string): string =>
  docxParagraphs(xml)
    .map((p) => p.text)
    .join('\n');
