/**
 * The signed document as PDF (pdf-lib): the contract text as sent (or the contract's PDF of
 * record), then a signature page (each signer's typed name, time, IP address and user
 * agent) and the audit trail, every hash-chained entry with its hash, the document hash
 * and the certificate's key_id. The text is set in DejaVu Sans and Sans Mono (embedded as
 * subsets, so only the glyphs used travel): Latin with every European accent, Greek and
 * Cyrillic print as written. A character the fonts lack (CJK, for one) is drawn as "?";
 * the exact text stays in the frozen document and the audit trail, which the hashes cover.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { AuditEntry } from '../../models/signature';

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

const charsets = new WeakMap<PDFFont, Set<number>>();

/** Characters the font can draw, others as "?". */
function drawable(font: PDFFont, text: string): string {
  let known = charsets.get(font);
  if (!known) charsets.set(font, (known = new Set(font.getCharacterSet())));
  return [...text.replace(/\t/g, '    ')].map((c) => (known.has(c.codePointAt(0)!) ? c : '?')).join('');
}

/** Lines of at most WIDTH at `size`, breaking at spaces (or inside a word longer than a line). */
function wrap(font: PDFFont, text: string, size: number, width = WIDTH): string[] {
  const lines: string[] = [];
  for (const paragraph of drawable(font, text).split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/(?<= )/)) {
      if (font.widthOfTextAtSize(line + word, size) <= width) {
        line += word;
        continue;
      }
      if (line) lines.push(line.trimEnd());
      let rest = word;
      while (font.widthOfTextAtSize(rest, size) > width) {
        let n = rest.length;
        while (n > 1 && font.widthOfTextAtSize(rest.slice(0, n), size) > width) n--;
        lines.push(rest.slice(0, n));
        rest = rest.slice(n);
      }
      line = rest;
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
    w.text(`hash ${e.hash}`, { font: 'mono', size: 8, gap: 6 });
  }
}
