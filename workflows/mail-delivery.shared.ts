/** What starters of the mail delivery workflow share with it. */
import { workflowRef } from '../platform/temporal/workflow-ref';

export interface MailDeliveryInput {
  mailId: string;
}

export const mailDelivery = workflowRef<[MailDeliveryInput]>('mailDeliveryWorkflow', 'mail');
/** A message's workflow; a manual retry has one of its own. */
export const mailWorkflowId = (m: { id: string; retries: number }) => (m.retries ? `mail-${m.id}-retry-${m.retries}` : `mail-${m.id}`);
