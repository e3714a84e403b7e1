/** The import feature's own error codes. */
import { defineErrors } from '../../platform/errors';

export const importErrors = defineErrors({
  import_not_running: { status: 409, meaning: 'The import has already ended (completed, failed or cancelled)' },
  too_many_running_imports: {
    status: 409,
    meaning: 'The organization runs as many imports as it may (IMPORT_MAX_RUNNING_PER_ORG); wait for one to end, or cancel one',
  },
});

/** Why a running import cannot go on (its files would inflate past its limit, the disk lacks room): it fails with the reason. */
export class ImportRefusedError extends Error {
  override readonly name = 'ImportRefusedError';
}
