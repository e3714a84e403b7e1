/** What starters of the import workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export const bulkImportWorkflowId = (importId: string) => `import-${importId}`;

/** Carried across continue-as-new: where the workflow was and what it has counted. */
export interface ImportProgress {
  /** The next batch of rows to import. */
  batch: number;
  done: number;
  failed: number;
  /** Files named by accepted rows, and those that failed before ingestion (not in the ZIP, a bomb, ...). */
  files: number;
  filesRejected: number;
  /** Bytes the files taken out of the ZIP so far hold (held to the import's inflated-bytes limit). */
  inflated: number;
  /** Batches with contracts whose terms are to be extracted (content or a file). */
  termBatches: number[];
  termsTotal: number;
  /** Terms batches already worked through. */
  termsBatch: number;
  termsExtracted: number;
}

export interface ImportInput {
  importId: string;
  progress?: ImportProgress;
}

export const bulkImport = workflowRef<[ImportInput]>('bulkImportWorkflow', 'import', 'bulk');
