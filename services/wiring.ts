/**
 * What a process is wired from, in one place: its engines, every feature's consumer of the
 * event stream with the relay that hands them the events this process records, and what
 * follows its writes (the indexed lists). The API (api/server.ts) and the worker
 * (workers/worker.ts) both start through `wireProcess`. platform/ knows no feature; it gets
 * them here.
 */
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { closeEngines, openEngines, type Engines } from '../platform/engines';
import { createRelay } from '../platform/outbox/relay';
import { followListWrites } from '../platform/lists/list-index';
import type { ListSpec } from '../platform/lists/lists';
import { contractList } from '../models/contract';
import { vendorList } from '../models/vendor';
import { documentList } from '../models/document';
import { signatureList } from '../models/signature';
import { taskList } from '../models/compliance-task';
import { deliveryList } from '../models/webhook-delivery';
import { activityList } from '../models/event';
import { contractDeletionConsumer } from './contract-deletion/delete-contract';
import { contractIndexConsumer } from './search/contract-index';
import { contractSearchConsumer } from './search/reflect-contracts';
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
  contractSearchConsumer,
  contractDeletionConsumer,
  integrationNotificationConsumer,
  integrationSyncConsumer,
  signatureMailConsumer,
  contractTermsConsumer,
];

// Queued mail is an outbox of the same kind: the catch-up loop also starts any message whose workflow did not start.
export const { relayEvent, relayPending, relayOnRecord, startRelayLoop } = createRelay(EVENT_CONSUMERS, [startPendingMail]);

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

/** What a process is handed: its services, the relay's catch-up loop to start if it runs one, and its shutdown. */
export interface WiredProcess {
  services: Engines;
  /** Starts the catch-up loop over unrelayed events (the worker runs it). */
  startRelayLoop(): ReturnType<typeof startRelayLoop>;
  close(): Promise<void>;
}

/**
 * The one way a process starts: connects the engines (each process has its own outbox
 * notifier, `services.events`), follows its writes to the indexed lists (when LIST_INDEX wants
 * them), and points the relay's immediate path at the events it records.
 */
export async function wireProcess(config: Config, logger: Logger): Promise<WiredProcess> {
  const services = await openEngines(config, logger, [followIndexedLists]);
  relayOnRecord(services);
  return { services, startRelayLoop: () => startRelayLoop(services), close: () => closeEngines(services) };
}
