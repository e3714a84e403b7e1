/**
 * The signed document as PDF (pdf-lib): the contract text as sent (or the contract's PDF of
 * record), then a signature page (each signer's typed name, time, IP address and user
 * agent) and the audit trail, every hash-chained entry with its hash, the document hash
 * and the certificate's key_id. The text is set in DejaVu Sans and Sans Mono (embedded as
 * subsets, so only the glyphs used travel): Latin with every European accent, Greek and
 * Cyrillic print as written, line breaks and blank lines as the text has them. A character
 * the fonts lack (CJK, for one) is drawn as U+FFFD; the exact text stays in the frozen
 * document and the audit trail, which the hashes cover.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { AuditEntry } from '../../models/signature';
import { describeFacts, type ApprovalFacts } from '../contracts/contract-facts';

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const WIDTH = A4[0] - 2 * MARGIN;

export interface SignedPdfEvidence {
  signatureId: string;
  title: string;
  documentHash: string;
  keyId: string | null;
  completedAt: Date | null;
  signers: Array<{
    name: string;
    email: string;
    signatureText: string | null;
    signedAt: Date | null;
    ip: string | null;
    userAgent: string | null;
  }>;
  trail: AuditEntry[];
}

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  mono: PDFFont;
}

/** Where a line ends, as the signing page reads it: CR LF, LF, CR, and the other line and paragraph breaks. */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;
/** Control and format characters (NUL, ESC, a soft hyphen, a zero-width space…): nothing to print. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;
const REPLACEMENT = '\uFFFD';

interface Metrics {
  known: Set<number>;
  /** Advance width of each character at size 1, as drawn (glyph by glyph). */
  widths: Map<string, number>;
}
const metrics = new WeakMap<PDFFont, Metrics>();

function metricsOf(font: PDFFont): Metrics {
  let m = metrics.get(font);
  if (!m) metrics.set(font, (m = { known: new Set(font.getCharacterSet()), widths: new Map() }));
  return m;
}

/**
 * One line as the font can draw it: composed (NFC, so an accent typed as a combining mark
 * joins its letter), tabs as four spaces, control and format characters left out, and a
 * character the font lacks (CJK, for one) as U+FFFD, never as a "?" that reads as text.
 */
function drawable(font: PDFFont, line: string): string {
  const { known } = metricsOf(font);
  const missing = known.has(REPLACEMENT.codePointAt(0)!) ? REPLACEMENT : '?';
  let out = '';
  for (const c of line.normalize('NFC').replace(/\t/g, '    ')) {
    if (UNPRINTABLE.test(c)) continue;
    out += known.has(c.codePointAt(0)!) ? c : missing;
  }
  return out;
}

/** Width of `text` at size 1: the sum of its characters' advances, cached, so wrapping stays linear in the text. */
function widthOf(font: PDFFont, text: string): number {
  const { widths } = metricsOf(font);
  let w = 0;
  for (const c of text) {
    let cw = widths.get(c);
    if (cw === undefined) widths.set(c, (cw = font.widthOfTextAtSize(c, 1)));
    w += cw;
  }
  return w;
}

/**
 * Lines of at most `width` at `size`: the text's own line breaks kept (a blank line stays a
 * blank line, so paragraphs stay apart), a long line broken at spaces, a word longer than a
 * line broken where it fills one.
 */
function wrap(font: PDFFont, text: string, size: number, width = WIDTH): string[] {
  const max = width / size;
  const lines: string[] = [];
  for (const source of text.split(LINE_BREAK)) {
    let line = '';
    let lineWidth = 0;
    for (const word of drawable(font, source).split(/(?<= )/)) {
      const w = widthOf(font, word);
      // A space that ends the line need not fit.
      if (lineWidth + widthOf(font, word.trimEnd()) <= max) {
        line += word;
        lineWidth += w;
        continue;
      }
      if (line) lines.push(line.trimEnd());
      line = '';
      lineWidth = 0;
      for (const c of word) {
        const cw = widthOf(font, c);
        if (line && lineWidth + cw > max) {
          lines.push(line);
          line = '';
          lineWidth = 0;
        }
        line += c;
        lineWidth += cw;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/** Writes lines top to bottom, starting a new page when one is full. */
class Writer {
  private page!: PDFPage;
  private y = 0;
  constructor(
    private readonly pdf: PDFDocument,
    private readonly fonts: Fonts,
  ) {
    this.newPage();
  }

  newPage() {
    this.page = this.pdf.addPage(A4);
    this.y = A4[1] - MARGIN;
  }

  text(text: string, opts: { size?: number; font?: keyof Fonts; gap?: number; grey?: boolean } = {}) {
    const size = opts.size ?? 10.5;
    const font = this.fonts[opts.font ?? 'regular'];
    const leading = size * 1.35;
    for (const line of wrap(font, text, size)) {
      if (this.y - leading < MARGIN) this.newPage();
      this.y -= leading;
      this.page.drawText(line, { x: MARGIN, y: this.y, size, font, color: opts.grey ? rgb(0.3, 0.3, 0.3) : rgb(0, 0, 0) });
    }
    this.y -= opts.gap ?? 0;
  }
}

/** The DejaVu font files (dejavu-fonts-ttf: Bitstream Vera licence, DejaVu changes public domain), read once. */
const FONT_DIR = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
let fontFiles: Promise<Record<keyof Fonts, Buffer>> | undefined;
const readFonts = () =>
  (fontFiles ??= Promise.all(
    ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansMono.ttf'].map((f) => readFile(path.join(FONT_DIR, f))),
  ).then(([regular, bold, mono]) => ({ regular: regular!, bold: bold!, mono: mono! })));

async function fontsOf(pdf: PDFDocument): Promise<Fonts> {
  pdf.registerFontkit(fontkit);
  const files = await readFonts();
  return {
    regular: await pdf.embedFont(files.regular, { subset: true }),
    bold: await pdf.embedFont(files.bold, { subset: true }),
    mono: await pdf.embedFont(files.mono, { subset: true }),
  };
}

const time = (d: Date | null) =>
  d
    ? d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
    : '-';

/** The contract text as pages: the copy a signer downloads, and the start of the signed PDF. */
export async function renderDocumentPdf(title: string, text: string): Promise<PDFDocument> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(title);
  pdf.setProducer('contract-lifecycle service');
  const w = new Writer(pdf, await fontsOf(pdf));
  w.text(title, { size: 16, font: 'bold', gap: 10 });
  w.text(text);
  return pdf;
}

/** The signature page and the audit trail, appended to `pdf`. */
export async function appendEvidencePages(pdf: PDFDocument, ev: SignedPdfEvidence): Promise<void> {
  const w = new Writer(pdf, await fontsOf(pdf));
  w.text('Signatures', { size: 16, font: 'bold', gap: 4 });
  w.text(
    `${ev.title}: every signer signed electronically with a typed name${ev.completedAt ? `; completed ${time(ev.completedAt)}` : ''}.`,
    { gap: 12 },
  );
  for (const x of ev.signers) {
    w.text(x.signatureText ?? x.name, { size: 15, font: 'bold' });
    w.text(`${x.name} <${x.email}>`);
    w.text(`Signed: ${time(x.signedAt)}    IP address: ${x.ip ?? '-'}`, { grey: true });
    w.text(`User agent: ${x.userAgent ?? '-'}`, { size: 9, grey: true, gap: 12 });
  }
  w.newPage();
  w.text('Audit trail', { size: 16, font: 'bold', gap: 4 });
  w.text(`Signature request ${ev.signatureId}. Document SHA-256: ${ev.documentHash}. Certificate key_id: ${ev.keyId ?? '-'}.`, { gap: 4 });
  w.text(
    "Each entry's hash is the SHA-256 of the previous hash and the entry's canonical JSON (GET /api/v1/signatures/:id/verify checks the chain).",
    { size: 9, grey: true, gap: 10 },
  );
  for (const e of ev.trail) {
    const who = [e.name, e.email ? `<${e.email}>` : null].filter(Boolean).join(' ');
    w.text(`#${e.seq} ${e.type}  ${e.at}${who ? `  ${who}` : ''}`, { font: 'bold', size: 10 });
    if (e.ip || e.user_agent) w.text(`IP ${e.ip ?? '-'}  ${e.user_agent ?? ''}`, { size: 9, grey: true });
    if (e.detail) w.text(e.detail, { size: 9 });
    const facts = e.facts ? describeFacts(JSON.parse(e.facts) as ApprovalFacts) : [];
    for (const line of facts) w.text(`${e.type === 'requested' ? 'Facts judged' : 'Facts approved'}: ${line}`, { size: 9 });
    w.text(`hash ${e.hash}`, { font: 'mono', size: 8, gap: 6 });
  }
}
