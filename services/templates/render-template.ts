/**
 * Rendering a template's DOCX with docxtemplater (open source, MIT): it keeps the template's
 * formatting (the runs of a tag take the first run's formatting), joins the runs Word split a
 * tag into, repeats table rows and paragraphs for sections, and lets us replace its parser:
 * a tag is looked up as a name (or name.field) in the data and never evaluated. Its angular
 * expression parser is not used, so `{{a + b}}` or `{{x | filter}}` cannot run.
 */
import Docxtemplater from 'docxtemplater';
import type PizZip from 'pizzip';
import { docxParagraphs } from '../../platform/docx/paragraphs';

export const TEMPLATED_PART = /^word\/(document|header\d*|footer\d*)\.xml$/;

interface ParserContext {
  meta?: { part?: { module?: string } };
}

const own = (o: unknown, k: string): unknown =>
  o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k) ? (o as Record<string, unknown>)[k] : undefined;

/** A tag as data: `.` is the current row, `a.b` a field; own properties only. Yes/no prints Yes or No outside a section. */
function parser(tag: string) {
  const path = tag.trim().split('.');
  return {
    get(scope: unknown, context?: ParserContext) {
      const value = tag.trim() === '.' ? scope : path.reduce<unknown>((o, k) => own(o, k), scope);
      if (typeof value === 'boolean' && context?.meta?.part?.module !== 'loop') return value ? 'Yes' : 'No';
      return value;
    },
  };
}

/** docxtemplater over the package: `{{ }}` tags, sections over whole paragraphs, newlines as line breaks. */
export function compileTemplate(zip: PizZip): Docxtemplater {
  return new Docxtemplater(zip, {
    delimiters: { start: '{{', end: '}}' },
    paragraphLoop: true,
    linebreaks: true,
    parser,
    nullGetter: () => '',
  });
}

export interface Rendered {
  docx: Buffer;
  /** The body's paragraphs, one per line. */
  text: string;
}

/** The DOCX rendered from the data, and its text. */
export function renderTemplate(zip: PizZip, data: Record<string, unknown>): Rendered {
  const doc = compileTemplate(zip).render(data);
  const out = doc.getZip() as PizZip;
  const xml = out.file('word/document.xml')!.asText();
  const text = docxParagraphs(xml)
    .map((p) => p.text)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { docx: out.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), text };
}

/** docxtemplater's own complaints (a structure our checks let through), as text. */
export function docxtemplaterProblems(err: unknown): string[] | null {
  const e = err as {
    properties?: { errors?: Array<{ message: string; properties?: { xtag?: string; explanation?: string; file?: string } }> };
  };
  const list = e?.properties?.errors;
  if (!Array.isArray(list)) return null;
  return list.map(
    (x) =>
      `${x.properties?.xtag ? `{{${x.properties.xtag}}}` : 'a tag'} in ${x.properties?.file ?? 'the document'}: ${x.properties?.explanation ?? x.message}`,
  );
}
