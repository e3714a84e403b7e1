import type { Services } from '../lib/services';
import { createWebhookActivities } from './webhooks';

/** Every activity the worker registers, bound to the process's engines. */
export function createActivities(s: Services) {
  return {
    ...createWebhookActivities(s),
  };
}
