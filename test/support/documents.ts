/** Fixture files for upload tests, generated with the real writers (pdf-lib, docx), and upload helpers. */
import { Document as DocxDocument, HeadingLevel, Packer, PageBreak, Paragraph, Table, TableCell, TableRow } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { testEnv } from './env';
import { api } from './http';

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

/**
 * A DOCX of sections: each a Heading 1 followed by its paragraphs. A section with `newPage`
 * starts on a new page: an explicit page break (`<w:br w:type="page"/>`, Word's Ctrl+Enter)
 * in a paragraph of its own before its heading. (`pageBreakBefore` would write a paragraph
 * property instead, which mammoth does not read.)
 */
export async function makeDocx(
  sections: Array<{
    heading: string;
    paragraphs: string[];
    newPage?: boolean;
    /** A table after the heading, one row per entry (a cover page). */ table?: string[][];
  }>,
): Promise<Buffer> {
  const doc = new DocxDocument({
    sections: [
      {
        children: sections.flatMap((s) => [
          ...(s.newPage ? [new Paragraph({ children: [new PageBreak()] })] : []),
          new Paragraph({ text: s.heading, heading: HeadingLevel.HEADING_1 }),
          ...(s.table
            ? [
                new Table({
                  rows: s.table.map(
                    (cells) => new TableRow({ children: cells.map((text) => new TableCell({ children: [new Paragraph({ text })] })) }),
                  ),
                }),
              ]
            : []),
          ...s.paragraphs.map((p) => new Paragraph({ text: p })),
        ]),
      },
    ],
  });
  return Packer.toBuffer(doc);
}

export interface UploadedDocument {
  id: string;
  filename: string;
  size_bytes: number;
  mime_type: string;
  category: string;
  status: 'processing' | 'ready' | 'failed';
  error: string | null;
  chunk_count: number;
  page_count: number | null;
  workflow_id: string;
  contract_id: string | null;
  created_at: string;
}

/** POST /documents/upload as multipart/form-data. */
export async function upload(
  token: string,
  file: { name: string; bytes: Uint8Array; type?: string },
  category?: string,
  {
    headers = {},
    base = testEnv().baseUrl,
    fields = {},
  }: { headers?: Record<string, string>; base?: string; fields?: Record<string, string> } = {},
) {
  const form = new FormData();
  form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  if (category !== undefined) form.append('category', category);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const res = await fetch(`${base}/documents/upload`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as UploadedDocument & { detail?: string } };
}

/**
 * Waits for the ingestion workflow to finish (ready or failed), then reads the document:
 * one request, so polling does not eat into the caller's rate limit.
 */
export async function settled(token: string, id: string): Promise<UploadedDocument> {
  await testEnv().services.temporal.workflow.getHandle(`ingest-${id}`).result();
  const res = await api<UploadedDocument>('GET', `/documents/${id}`, { token });
  if (res.status !== 200) throw new Error(`GET /documents/${id}: ${res.status} ${res.text}`);
  return res.body;
}
