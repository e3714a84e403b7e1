/** The import feature's own error codes. */
import { defineErrors } from '../../platform/errors';

export const importErrors = defineErrors({
  import_not_running: { status: 409, meaning: 'The import has already ended (completed, failed or cancelled)' },
});
