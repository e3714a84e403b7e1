/** The search feature's own error codes (platform/errors.ts `defineErrors`). */
import { defineErrors } from '../../platform/errors';

export const searchErrors = defineErrors({
  search_cursor_invalid: { status: 400, meaning: 'The cursor was not made by this search (another sort, or altered)' },
  search_unavailable: { status: 503, meaning: 'The search engine is unavailable; try again shortly' },
  search_reindex_running: {
    status: 409,
    meaning:
      'A reindex of the organization is running, or ended within the cooldown; `detail` names it and `Retry-After` says when to try again',
  },
});
