/** What starters of the integration notification workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface NotificationInput {
  eventId: string;
  integrationId: string;
}

export const integrationNotification = workflowRef<[NotificationInput]>('integrationNotificationWorkflow', 'integration-notification');
export const notifyWorkflowId = (eventId: string, integrationId: string) => `integration-notify-${eventId}-${integrationId}`;
