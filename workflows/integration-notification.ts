/**
 * One chat notification (one event to one integration), retried with backoff. The
 * activity turns a vendor's 429 into a retry after its Retry-After (nextRetryDelay) and
 * other 4xx answers into a non-retryable failure, so only what can succeed is retried.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { IntegrationActivities } from '../activities/integrations';
import type { NotificationInput } from './integration-notification.shared';

const { sendIntegrationNotification } = proxyActivities<IntegrationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 8 },
});

export async function integrationNotificationWorkflow(input: NotificationInput): Promise<'sent' | 'skipped'> {
  return sendIntegrationNotification(input);
}
