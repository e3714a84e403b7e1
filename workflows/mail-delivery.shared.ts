/** What starters of the mail delivery workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface MailDeliveryInput {
  mailId: string;
}

export const mailDelivery = workflowRef<[MailDeliveryInput]>('mailDeliveryWorkflow', 'mail');
