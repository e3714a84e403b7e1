/**
 * Document ingestion steps (services/documents/stage-document-chunks.ts,
 * index-document-chunks.ts, finish-document.ts, fail-document.ts). Workflow payloads carry
 * the document id and chunk ranges only: the chunks are staged in MongoDB between the steps
 * and chunk ids are deterministic, so any step can be retried (or a killed worker resumed)
 * without duplicates. The long steps heartbeat with their progress.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Engines } from '../platform/engines';
import { whileBeating } from '../platform/temporal/heartbeat';
import { ExtractionLimitError, UnreadableDocumentError } from '../services/documents/document-files';
import { MissingFileError, stageDocumentChunks } from '../services/documents/stage-document-chunks';
import { indexDocumentChunks } from '../services/documents/index-document-chunks';
import { finishDocument } from '../services/documents/finish-document';
import { failDocument } from '../services/documents/fail-document';
import type { PreparedDocument } from '../workflows/document-ingestion.shared';

/** What no retry mends fails the step at once, under the type the workflow reports. */
function extractionFailure(err: unknown): unknown {
  if (err instanceof UnreadableDocumentError) return ApplicationFailure.nonRetryable(err.message, 'UnreadableDocument');
  // The same file would be over the same limit on every try.
  if (err instanceof ExtractionLimitError) return ApplicationFailure.nonRetryable(err.message, 'DocumentOverLimit');
  if (err instanceof MissingFileError) return ApplicationFailure.nonRetryable(err.message, 'MissingFile');
  return err;
}

export function createDocumentActivities(s: Engines) {
  return {
    /** Extracts, chunks and stages the file; null when the document was deleted meanwhile. */
    async extractDocument({ documentId }: { documentId: string }): Promise<PreparedDocument | null> {
      const progress: Record<string, number> = {};
      try {
        return await whileBeating(
          () => progress,
          () => stageDocumentChunks(s, documentId, progress),
        );
      } catch (err) {
        throw extractionFailure(err);
      }
    },

    /**
     * Embeds and indexes the `batches` staged batches from `from` (one batch when not given:
     * the calls of ingestions started before spans).
     */
    async indexDocumentChunks({ documentId, from, batches = 1 }: { documentId: string; from: number; batches?: number }): Promise<number> {
      const stage = { from, batch: 0 };
      return whileBeating(
        () => stage,
        () => indexDocumentChunks(s, { documentId, from, batches }, stage),
      );
    },

    /** Marks the document ready (and searchable), dropping vectors an earlier, longer version left behind. */
    async finishDocument({ documentId, ...prepared }: { documentId: string } & PreparedDocument): Promise<void> {
      await finishDocument(s, documentId, prepared);
    },

    async failDocument({ documentId, error }: { documentId: string; error: string }): Promise<void> {
      await failDocument(documentId, error);
    },
  };
}

export type DocumentActivities = ReturnType<typeof createDocumentActivities>;
