/** AI analysis of an uploaded document, its file read again by a child process within the extraction limits. */
import type { Engines } from '../../platform/engines';
import { badRequest } from '../../platform/errors';
import { documentErrors } from './errors';
import type { Principal } from '../../platform/security/principal';
import { getDocument } from './list-documents';
import { fullText, type Page } from '../search/chunking';
import { analyzeDocumentByRules } from './document-analysis-rules';
import { extractTextInChild } from './extract-text-in-child';
import { ExtractionLimitError, UnreadableDocumentError, type SupportedMime } from './document-files';

/** Text an analysis reads (as much as the Gemini adapter sends the model). */
const ANALYSIS_CHARS = 100_000;

export async function analyzeDocument(s: Engines, p: Principal, documentId: unknown) {
  const doc = await getDocument(p, documentId);
  const pages: Page[] = [];
  let kept = 0;
  try {
    for await (const { page, text } of extractTextInChild(doc.storage_path, doc.mime_type as SupportedMime, s.config)) {
      // Every page is counted; the analysis reads the first ANALYSIS_CHARS of text.
      const part = text.slice(0, Math.max(0, ANALYSIS_CHARS - kept));
      kept += part.length;
      const last = pages.at(-1);
      if (last?.page === page) last.text += part;
      else pages.push({ page, text: part });
    }
  } catch (err) {
    if (err instanceof UnreadableDocumentError) throw badRequest(`document: ${err.message}`);
    if (err instanceof ExtractionLimitError) throw documentErrors.document_over_extraction_limit(`document: ${err.message}`);
    throw err;
  }
  const input = { filename: doc.filename, text: fullText(pages), pageCount: pages.length };
  return (await s.ai.analyzeDocument(input)) ?? analyzeDocumentByRules(input);
}
