/** The steps of the import workflow (`import-<id>`), each a use case of services/imports/. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Engines } from '../platform/engines';
import { whileBeating } from '../platform/temporal/heartbeat';
import { IMPORT_PHASES } from '../models/import';
import { ImportRefusedError } from '../services/imports/errors';
import { importBatch, type BatchInput } from '../services/imports/import-batch';
import { extractImportTerms, finishImport, importFileProgress, startImportPhase } from '../services/imports/import-phases';

export function createImportActivities(s: Engines) {
  return {
    /** One batch of rows; heartbeats so a dead worker's batch is retried within seconds. A refused batch fails the import at once, with its reason. */
    importBatch: (input: BatchInput) =>
      whileBeating(
        () => input.batch,
        () => importBatch(s, input),
      ).catch((err: unknown) => {
        throw err instanceof ImportRefusedError ? ApplicationFailure.nonRetryable(err.message, 'ImportRefused') : err;
      }),
    startImportPhase: ({ importId, phase, termsTotal }: { importId: string; phase: (typeof IMPORT_PHASES)[number]; termsTotal?: number }) =>
      startImportPhase(importId, phase, termsTotal),
    importFileProgress: ({ importId, filesRejected }: { importId: string; filesRejected: number }) =>
      importFileProgress(importId, filesRejected),
    extractImportTerms: (input: { importId: string; batch: number; before: number }) => {
      let contracts = 0;
      return whileBeating(
        () => contracts,
        () => extractImportTerms(s, input, () => contracts++),
      );
    },
    finishImport: ({ importId, status, error }: { importId: string; status: 'completed' | 'failed' | 'cancelled'; error?: string }) =>
      finishImport(importId, status, error).then(() => undefined),
  };
}

export type ImportActivities = ReturnType<typeof createImportActivities>;
