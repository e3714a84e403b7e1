/**
 * A received Word file read off the event loop, as a task of the offload pool: its size
 * checked as every upload's is (services/documents/check-expansion.ts: ZIP bombs and lying
 * headers), then refused for macros or external relationships, else read
 * (platform/docx/inspect-docx.ts).
 */
import { inspectDocx, type Inspection } from '../../platform/docx/inspect-docx';
import { checkExpansion } from '../documents/check-expansion';
import { ExtractionLimitError, MIME, UnreadableDocumentError } from '../documents/document-files';

export type WordUpload = Inspection | { ok: false; refusal: { kind: 'too_large'; detail: string } };

export async function readWordUpload(input: { path: string; maxExpandedBytes: number }): Promise<WordUpload> {
  try {
    await checkExpansion(input.path, MIME.docx, input.maxExpandedBytes);
  } catch (err) {
    if (err instanceof ExtractionLimitError) return { ok: false, refusal: { kind: 'too_large', detail: `file: ${err.message}` } };
    if (err instanceof UnreadableDocumentError) return { ok: false, refusal: { kind: 'format', detail: `file: ${err.message}` } };
    throw err;
  }
  return inspectDocx({ path: input.path });
}
