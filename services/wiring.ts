/**
 * What the worker and the API wire together: the event relay and every feature's consumer of
 * the event stream. The relay (platform/outbox/relay.ts) knows no feature; it gets them here.
 */
import { createRelay } from '../platform/outbox/relay';
import { contractDeletionConsumer } from './contracts/contract-deletion';
import { contractIndexConsumer } from './search/contract-index';
import { integrationNotificationConsumer } from './integrations/notifications';
import { integrationSyncConsumer } from './integrations/sync';
import { mailConsumer } from './mail/consumer';
import { startPendingMail } from './mail/queue';
import { webhookConsumer } from './webhooks/deliver-events';
import { contractTermsConsumer } from './contracts/renewal-deadlines';

/** Every consumer of the event stream. */
export const EVENT_CONSUMERS = [
  webhookConsumer,
  contractIndexConsumer,
  contractDeletionConsumer,
  integrationNotificationConsumer,
  integrationSyncConsumer,
  mailConsumer,
  contractTermsConsumer,
];

// Queued mail is an outbox of the same kind: the catch-up loop also starts any message whose workflow did not start.
export const { relayEvent, relayPending, relayOnRecord, startRelayLoop } = createRelay(EVENT_CONSUMERS, [startPendingMail]);
