/** What document requests can fail on, in the domain's words (platform/errors.ts). */
import { defineErrors } from '../../platform/errors';

export const documentErrors = defineErrors({
  document_over_extraction_limit: {
    status: 422,
    meaning: 'The document expands past what text extraction reads (pages, characters or time)',
  },
});
