/** What compliance requests can fail on, in the domain's words (platform/errors.ts). */
import { defineErrors } from '../../platform/errors';

export const complianceErrors = defineErrors({
  compliance_task_exists: { status: 409, meaning: 'An open task for this contract and rule already exists' },
});
