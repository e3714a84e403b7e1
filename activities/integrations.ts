/** Integration activities: delivery of one chat notification (services/integrations/send-notification.ts). */
import type { Engines } from '../platform/engines';
import { sendNotification } from '../services/integrations/send-notification';
import type { NotificationInput } from '../workflows/integration-notification.shared';
import { failingAsVendor } from './vendor-failure';

export function createIntegrationActivities(s: Engines) {
  return {
    sendIntegrationNotification: failingAsVendor((input: NotificationInput) => sendNotification(s, input)),
  };
}

export type IntegrationActivities = ReturnType<typeof createIntegrationActivities>;
