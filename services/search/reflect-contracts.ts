/**
 * Keeping the repository search index in step with the store: one writer per document.
 *
 * - The outbox consumer `contractSearchConsumer` (listed in services/wiring.ts) writes the
 *   document of the contract each contract or signature event names, in the relay's
 *   immediate path: the writes of an organization that come together share one store read
 *   and one bulk write (`reflectContracts`), without a refresh.
 * - A use case whose answer must already be searchable (the API's create and edit, a
 *   signature's completion) awaits that consumer's run on its own event (`makeSearchable`;
 *   the relay's immediate path shares the run) and then a refresh shared with every writer
 *   waiting at that moment, instead of a refresh of its own per write: at 20 writers on this
 *   machine 68 writes/s against 9 with `refresh=true`, and 104 ms against 1,043 ms alone with
 *   `refresh=wait_for` at the default 1 s interval (bench/README.md, writes).
 * - A use case that changes what a document holds without a contract event (key terms, an
 *   import batch, documents, compliance tasks, a vendor removed) calls `reflectContracts`
 *   itself, and `searchRefresh` when its answer must be searchable.
 * - A deletion removes the document itself, after the contract is gone (contract-deletion.ts).
 * - Repair: a failed write leaves its event unrelayed, and the relay runs the consumer again;
 *   the reindex workflow rebuilds everything from the store.
 */
import type { Engines } from '../../platform/engines';
import { sharedFlush } from '../../platform/shared-flush';
import { consumeOnce, type EventConsumer, type EventRecord } from '../../platform/outbox/relay';
import { readSearchDocs, searchDocOf } from './contract-search-docs';
import type { ContractDoc } from '../../models/contract';
import { writeSearchDocs, writeTargets, type SearchEngines } from './contract-search-index';

/** Contracts per bulk write (a burst of one organization goes in several). */
const WRITE_BATCH = 200;

type Flusher = (key: string, contractId: string) => Promise<void>;
const writers = new WeakMap<SearchEngines, Flusher>();
const refreshers = new WeakMap<SearchEngines, (key: string, item: undefined) => Promise<void>>();

/**
 * Re-reads contracts of one organization from the store and writes their search documents (or
 * removes them when gone), without a refresh. Calls that come while a write of the
 * organization is under way share the next one.
 */
export async function reflectContracts(s: SearchEngines, organizationId: string, contractIds: readonly string[]): Promise<void> {
  let write = writers.get(s);
  if (!write) {
    write = sharedFlush<string>(
      async (organization, ids) => {
        const unique = [...new Set(ids)];
        for (let i = 0; i < unique.length; i += WRITE_BATCH)
          await writeSearchDocs(s, await readSearchDocs(s, organization, unique.slice(i, i + WRITE_BATCH)), { refresh: false });
      },
      { maxItems: WRITE_BATCH },
    );
    writers.set(s, write);
  }
  await Promise.all([...new Set(contractIds)].map((id) => write(organizationId, id)));
}

/** Makes what was written to the search index so far searchable: one refresh shared by every caller waiting at that moment. */
export async function searchRefresh(s: SearchEngines): Promise<void> {
  let refresh = refreshers.get(s);
  if (!refresh) {
    refresh = sharedFlush(async () => {
      await s.es.indices.refresh({ index: await writeTargets(s) });
    });
    refreshers.set(s, refresh);
  }
  await refresh('search', undefined);
}

/** Events that change a contract's search document: the contract named by the resource or by `data.contract_id`. */
const SEARCH_EVENTS = new Set([
  'contract.created',
  'contract.updated',
  'contract.analyzed',
  'contract.renewal_due',
  'signature.requested',
  'signature.completed',
  'signature.declined',
  'signature.expired',
  'compliance.alert',
]);

/** The contract whose document an event changes, if any. */
function contractOf(event: EventRecord): string | null {
  if (!SEARCH_EVENTS.has(event.type)) return null;
  const data = event.data as { contract_id?: unknown; import_id?: unknown };
  // An import batch writes its contracts' documents itself, a batch at a time.
  if (data.import_id !== undefined) return null;
  const id = event.resource_type === 'contract' ? event.resource_id : data.contract_id;
  return typeof id === 'string' ? id : null;
}

/** Writes the search document of each contract event's contract (the one writer of event-driven documents). */
export const contractSearchConsumer: EventConsumer = {
  name: 'contract-search',
  async consume(s, event) {
    const contractId = contractOf(event);
    if (contractId) await reflectContracts(s, event.organization_id.toHexString(), [contractId]);
  },
};

/**
 * A use case's step that makes its event's contract searchable before it answers: the search
 * consumer's run on the event (shared with the relay's) and a shared refresh. A failure is
 * logged, not thrown: the write has happened, and the relay runs the consumer again.
 */
export async function makeSearchable(s: Pick<Engines, 'es' | 'config' | 'logger'>, event: EventRecord): Promise<void> {
  try {
    await consumeOnce(s as Engines, event, contractSearchConsumer);
    await searchRefresh(s);
  } catch (err) {
    s.logger.warn({ err: String(err), eventId: event.id }, 'not yet searchable; the relay writes it again');
  }
}

/**
 * An import batch's step: its new contracts searchable, their documents made from the records
 * just inserted (nothing hangs off a contract yet, so nothing else is read), in one bulk write.
 */
export async function makeNewContractsSearchable(
  s: Pick<Engines, 'es' | 'config' | 'logger'>,
  contracts: readonly ContractDoc[],
): Promise<void> {
  const readAt = Date.now();
  const none = { terms: null, signaturePending: false, openTasks: 0, pages: [] };
  try {
    await writeSearchDocs(s, { docs: contracts.map((c) => searchDocOf(c, none, readAt)), deleted: [], readAt }, { refresh: false });
    await searchRefresh(s);
  } catch (err) {
    s.logger.warn({ err: String(err), contracts: contracts.length }, 'imported contracts not yet searchable; the reindex repairs it');
  }
}

/** The same step for contracts changed without an event of their own (key terms, documents, tasks). */
export async function makeContractsSearchable(
  s: Pick<Engines, 'es' | 'config' | 'logger'>,
  organizationId: string,
  contractIds: readonly string[],
): Promise<void> {
  try {
    await reflectContracts(s, organizationId, contractIds);
    await searchRefresh(s);
  } catch (err) {
    s.logger.warn({ err: String(err), contracts: contractIds.length }, 'not yet searchable; the reindex repairs it');
  }
}
