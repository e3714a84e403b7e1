/**
 * DOCX to PDF with LibreOffice headless (`soffice --convert-to pdf`), so the PDF of record
 * looks like the Word file: Documenso renders the same way (through Gotenberg). One
 * conversion is one soffice process; each of the process's PDF_RENDER_CONCURRENCY slots keeps
 * its own LibreOffice profile (an instance per profile: two conversions on one profile would
 * hand their work to each other), created by its first conversion, the cold start.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface PdfRenderConfig {
  SOFFICE_PATH: string;
  PDF_RENDER_TIMEOUT_MS: number;
  PDF_RENDER_CONCURRENCY: number;
}

export class PdfRenderError extends Error {}

const free: number[] = [];
const waiting: Array<(slot: number) => void> = [];
let slots = 0;

async function withSlot<T>(max: number, run: (slot: number) => Promise<T>): Promise<T> {
  const slot = free.pop() ?? (slots < max ? slots++ : await new Promise<number>((resolve) => waiting.push(resolve)));
  try {
    return await run(slot);
  } finally {
    const next = waiting.shift();
    if (next) next(slot);
    else free.push(slot);
  }
}

function soffice(bin: string, args: string[], timeout: number): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(bin, args, { timeout, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024 }, (err, _out, stderr) =>
      err
        ? reject(
            new PdfRenderError(
              `LibreOffice could not convert the document (${err.message.split('\n')[0]}; ${stderr.trim().slice(0, 200)})`,
            ),
          )
        : resolve(),
    ),
  );
}

/** The PDF LibreOffice renders of the DOCX. */
export function docxToPdf(docx: Buffer, config: PdfRenderConfig): Promise<Buffer> {
  return withSlot(config.PDF_RENDER_CONCURRENCY, async (slot) => {
    const profile = path.join(tmpdir(), `clm-soffice-${process.pid}-${slot}`);
    await mkdir(profile, { recursive: true });
    const dir = await mkdtemp(path.join(tmpdir(), 'clm-render-'));
    try {
      const input = path.join(dir, 'document.docx');
      await writeFile(input, docx);
      await soffice(
        config.SOFFICE_PATH,
        [
          '--headless',
          '--norestore',
          '--nologo',
          `-env:UserInstallation=${pathToFileURL(profile).href}`,
          '--convert-to',
          'pdf',
          '--outdir',
          dir,
          input,
        ],
        config.PDF_RENDER_TIMEOUT_MS,
      );
      return await readFile(path.join(dir, 'document.pdf')).catch(() => {
        throw new PdfRenderError('LibreOffice wrote no PDF for the document');
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
