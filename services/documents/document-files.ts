/**
 * What other features may know of documents' files: the types accepted, what a file is (by
 * its bytes, never its name), a client's file name made safe, and the errors reading one
 * gives. The rest of services/documents/ is its own.
 */
import { createReadStream } from 'node:fs';
import { fileTypeFromFile } from 'file-type';

export const MIME = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  txt: 'text/plain',
} as const;
export type SupportedMime = (typeof MIME)[keyof typeof MIME];

/** How many times its compressed size a part of a file (a DOCX's, a ZIP import's) may expand to. */
export const MAX_INFLATE_RATIO = 100;

/** The file cannot be turned into text (corrupt, encrypted, scanned without text). */
export class UnreadableDocumentError extends Error {}

/** The file is over a limit on what reading it may cost; the message says which, for a person. */
export class ExtractionLimitError extends Error {}

/** Valid UTF-8 with no NUL byte: what a text file is; checked by streaming, not loading. */
async function isPlainText(path: string): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const piece of createReadStream(path) as AsyncIterable<Buffer>) {
      if (piece.includes(0)) return false;
      decoder.decode(piece, { stream: true });
    }
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/** The supported type the file's content shows, or null (a renamed binary is null). */
export async function detectFileType(path: string): Promise<SupportedMime | null> {
  const detected = await fileTypeFromFile(path);
  if (detected) {
    if (detected.mime === MIME.pdf) return MIME.pdf;
    if (detected.mime === MIME.docx) return MIME.docx;
    return null;
  }
  return (await isPlainText(path)) ? MIME.txt : null;
}

/** The client's name reduced to a plain file name: no directories, control or reserved characters. */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}<>:"|?*]/gu, '')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 200);
  return clean || 'upload';
}

/** The file as the multipart middleware stored it. */
export interface ReceivedFile {
  path: string;
  size: number;
  originalname: string;
}
