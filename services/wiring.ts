/**
 * What the worker and the API wire together: the event relay and every feature's consumer of
 * the event stream, and what follows each process's writes (the auth cache, the indexed lists).
 * platform/ knows no feature; it gets them here.
 */
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { openEngines, type Engines } from '../platform/engines';
import { createRelay } from '../platform/outbox/relay';
import { recordedEvents } from '../platform/outbox/record-event';
import { followListWrites } from '../platform/lists/list-index';
import type { ListSpec } from '../platform/lists/lists';
import { contractList } from '../models/contract';
import { vendorList } from '../models/vendor';
import { documentList } from '../models/document';
import { signatureList } from '../models/signature';
import { taskList } from '../models/compliance-task';
import { deliveryList } from '../models/webhook-delivery';
import { activityList } from '../models/event';
import { forgetWrittenUsers } from './identity/auth-user';
import { contractDeletionConsumer } from './contract-deletion/delete-contract';
import { contractIndexConsumer } from './search/contract-index';
import { integrationNotificationConsumer } from './integrations/notifications';
import { integrationSyncConsumer } from './integrations/sync';
import { signatureMailConsumer } from './signatures/signature-mail';
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
  signatureMailConsumer,
  contractTermsConsumer,
];

// Queued mail is an outbox of the same kind: the catch-up loop also starts any message whose workflow did not start.
export const { relayEvent, relayPending, relayOnRecord, startRelayLoop } = createRelay(recordedEvents, EVENT_CONSUMERS, [startPendingMail]);

/** The lists answered from the list index when there is one (platform/lists/list-index.ts); their models announce their writes. */
export const INDEXED_LISTS: readonly ListSpec[] = [
  contractList,
  vendorList,
  documentList,
  signatureList,
  taskList,
  deliveryList,
  activityList,
];

/** Starts a process's list index, when LIST_INDEX wants one, on the indexed lists. */
export const followIndexedLists = (s: Engines) => followListWrites(s, INDEXED_LISTS);

/** Connects a process to the engines, its auth cache and list index following its writes: the one way to start them. */
export function startEngines(config: Config, logger: Logger): Promise<Engines> {
  return openEngines(config, logger, [forgetWrittenUsers, followIndexedLists]);
}
