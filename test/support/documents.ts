/** Fixture files for upload tests, generated with the real writers (pdf-lib, docx). */
import { Document as DocxDocument, HeadingLevel, Packer, Paragraph } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A PDF with one page per entry; each page's lines are drawn top to bottom. */
export async function makePdf(pages: string[][]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([612, 792]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 740 - i * 16, size: 11, font }));
  }
  return Buffer.from(await pdf.save());
}

/** A DOCX of sections: each a Heading 1 followed by its paragraphs. */
export async function makeDocx(sections: Array<{ heading: string; paragraphs: string[] }>): Promise<Buffer> {
  const doc = new DocxDocument({
    sections: [
      {
        children: sections.flatMap((s) => [
          new Paragraph({ text: s.heading, heading: HeadingLevel.HEADING_1 }),
          ...s.paragraphs.map((p) => new Paragraph({ text: p })),
        ]),
      },
    ],
  });
  return Packer.toBuffer(doc);
}
