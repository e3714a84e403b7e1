/**
 * Chat notifications from the event stream. `notificationFor` turns an outbox event into
 * the kind-neutral message (pure); the relay consumer starts one
 * `integration-notify-<eventId>-<integrationId>` workflow per chat integration whose
 * `notify_on` asks for the event, so a replayed relay starts nothing twice.
 */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { EventConsumer } from '../../platform/outbox/relay';
import { startWorkflow } from '../../platform/temporal/client';
import { integrationNotification, notifyWorkflowId } from '../../workflows/integration-notification.shared';
import type { EventType } from '../../models/event';
import type { Notification, NotifyEvent } from './connector';
import { CONNECTORS } from './index';
import { liveIntegrations } from './find-integration';

/** Event type → `notify_on` name (underscore names, as docs/reference/service-interface.md spells them). */
export const NOTIFY_EVENT_OF: Partial<Record<EventType, NotifyEvent>> = {
  'contract.created': 'contract_created',
  'signature.completed': 'signature_completed',
  'compliance.alert': 'compliance_alert',
  'contract.renewal_due': 'renewal_due',
};

const HEADLINE: Record<NotifyEvent, string> = {
  contract_created: 'New contract',
  signature_completed: 'Signature completed',
  compliance_alert: 'Compliance alert',
  renewal_due: 'Renewal due',
};

const shown = z.union([z.string(), z.number(), z.boolean()]).transform(String).optional().catch(undefined);

/** The event data fields a message shows, by label; producers' other fields are ignored. */
const FACTS = [
  ['counterparty', 'Counterparty'],
  ['type', 'Type'],
  ['status', 'Status'],
  ['severity', 'Severity'],
  ['priority', 'Priority'],
  ['regulation', 'Regulation'],
  ['end_date', 'Ends'],
  ['renewal_date', 'Renewal date'],
  ['days_until_renewal', 'Days left'],
] as const;

const eventData = z
  .object({
    title: shown,
    contract_title: shown,
    ...Object.fromEntries(FACTS.map(([key]) => [key, shown])),
  })
  .catch({});

/** The message for an event, or null when no chat integration is ever notified of it. */
export function notificationFor(event: { type: EventType; data: unknown; summary: string }): Notification | null {
  const name = NOTIFY_EVENT_OF[event.type];
  if (!name) return null;
  const data = eventData.parse(event.data ?? {}) as Record<string, string | undefined>;
  const contract = data.contract_title ?? data.title;
  const facts = [
    ...(contract ? [{ label: 'Contract', value: contract }] : []),
    ...FACTS.flatMap(([key, label]) => (data[key] ? [{ label, value: data[key] }] : [])),
  ];
  return { event: name, title: contract ? `${HEADLINE[name]}: ${contract}` : HEADLINE[name], text: event.summary, facts };
}

const notifyOn = z.object({ notify_on: z.array(z.string()).default([]) }).catch({ notify_on: [] });

/** Whether an integration's stored settings ask for this kind of notification. */
export const wantsNotification = (config: unknown, event: NotifyEvent) => notifyOn.parse(config ?? {}).notify_on.includes(event);

const CHAT_TYPES = Object.values(CONNECTORS).flatMap((c) => (c.kind === 'chat' ? [c.type] : []));

export const integrationNotificationConsumer: EventConsumer = {
  name: 'integration-notifications',
  async consume(s: Engines, event) {
    const name = NOTIFY_EVENT_OF[event.type];
    if (!name) return;
    const organizationId = event.organization_id.toHexString();
    const targets = (await liveIntegrations(organizationId)).filter(
      (i) => CHAT_TYPES.includes(i.type) && wantsNotification(i.config, name),
    );
    for (const { _id } of targets) {
      const integrationId = _id.toHexString();
      await startWorkflow(s, integrationNotification, {
        workflowId: notifyWorkflowId(event.id, integrationId),
        args: [{ eventId: event.id, integrationId }],
        organizationId,
        recordId: integrationId,
      });
    }
  },
};
