/** What integration requests can fail on, in the domain's words (platform/errors.ts). */
import { defineErrors } from '../../platform/errors';

export const integrationErrors = defineErrors({
  integration_type_unknown: { status: 404, meaning: 'No integration of that type exists' },
  integration_connecting: { status: 409, meaning: 'Another request is connecting the same integration; try again' },
});
