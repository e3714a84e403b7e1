/**
 * Contracts in the `contracts_kb` collection: one contract's text (headed by its title,
 * type, counterparty and status, so questions about those find it) chunked, embedded
 * and written under deterministic ids. The sync workflow calls these for every contract;
 * contract events (through the relay) for one.
 */
import { trusted, Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { chunkPages } from './chunking';
import { chunkRecords, deleteSource, deleteSources, embedChunks, indexChunks, refreshCollections } from './vector-store';
import { Contract, type ContractDoc } from '../../models/contract';
import { orgFilter } from '../../models/base';
import { startWorkflow } from '../../platform/temporal/client';
import { sharedFlush } from '../../platform/shared-flush';
import type { EventConsumer } from '../../platform/outbox/relay';
import { contractChangedSignal, contractIndex, contractIndexWorkflowId } from '../../workflows/contract-index.shared';
import { reflectContracts } from './reflect-contracts';

/** Texts per embedding call. */
const EMBED_BATCH = 100;

export const contractText = (c: Pick<ContractDoc, 'title' | 'type' | 'counterparty' | 'status' | 'content'>) =>
  `${c.title}\nType: ${c.type}. Counterparty: ${c.counterparty}. Status: ${c.status}.\n\n${c.content ?? ''}`.trim();

/** A page of an organization's contract ids in id order, after `afterId`: what a full sync walks through. */
export async function listContractIds(organizationId: string, afterId: string | null, limit: number): Promise<string[]> {
  const filter = { ...orgFilter(organizationId), ...(afterId ? { _id: trusted({ $gt: new Types.ObjectId(afterId) }) } : {}) };
  const rows = await Contract.find(filter, { _id: 1 }).sort({ _id: 1 }).limit(limit).lean();
  return rows.map((r) => r._id.toHexString());
}

/**
 * (Re)indexes contracts of one organization, one after another; a contract that no longer
 * exists is removed. What the new versions leave behind is removed, and the index refreshed,
 * once for the batch (up to 50 contracts in a burst), not per contract. Returns their chunk count.
 */
export async function indexContracts(
  s: Engines,
  organizationId: string,
  contractIds: readonly string[],
  onIndexed: (contractId: string) => void,
): Promise<number> {
  /** Per contract, its chunk count now (0 when gone: every chunk goes). */
  const written = new Map<string, number>();
  for (const id of contractIds) {
    written.set(id, await writeContractChunks(s, organizationId, id));
    onIndexed(id);
  }
  // Deleted while this ran: its removal may have come before these writes, so take them back.
  const indexed = [...written].filter(([, chunks]) => chunks > 0).map(([id]) => id);
  if (indexed.length) {
    const remaining = await Contract.find({ _id: trusted({ $in: indexed }), organization_id: organizationId }, { _id: 1 }).lean();
    const exists = new Set(remaining.map((c) => c._id.toHexString()));
    for (const id of indexed) if (!exists.has(id)) written.set(id, 0);
  }
  // A shorter new version leaves the old tail behind.
  await deleteSources(
    s,
    organizationId,
    [...written].map(([sourceId, fromChunk]) => ({ sourceId, fromChunk })),
    { collections: ['contracts_kb'] },
  );
  await refreshCollections(s, ['contracts_kb']);
  // Their repository search documents too (the retry of what the API's write reflected).
  await reflectContracts(s, organizationId, contractIds, false);
  return [...written.values()].reduce((sum, n) => sum + n, 0);
}

/** Writes a contract's chunks as it is now; 0 when it no longer exists. */
async function writeContractChunks(s: Engines, organizationId: string, contractId: string): Promise<number> {
  const contract = await Contract.findOne({ _id: contractId, organization_id: organizationId });
  if (!contract) return 0;
  const chunks = chunkPages([{ page: 1, text: contractText(contract) }]);
  for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
    const batch = chunks.slice(i, i + EMBED_BATCH);
    const vectors = await embedChunks(
      s.ai,
      batch.map((c) => ({ ...c, title: contract.title })),
    );
    await indexChunks(
      s,
      'contracts_kb',
      chunkRecords({ organizationId, sourceType: 'contract', sourceId: contractId, title: contract.title }, batch, vectors),
    );
  }
  return chunks.length;
}

/** Removes a deleted contract's vectors. */
export async function removeContract(s: Engines, organizationId: string, contractId: string): Promise<void> {
  await deleteSource(s, organizationId, contractId, { collections: ['contracts_kb'] });
}

/** Deletions are finished by services/contracts/contract-deletion.ts, which also removes the chunks. */
const TEXT_EVENTS = new Set(['contract.created', 'contract.updated']);

/** Events that change a contract's search document but not its text: the contract named by `data.contract_id` or the resource. */
const SEARCH_EVENTS = new Set([
  'contract.analyzed',
  'contract.renewal_due',
  'contract.deleted',
  'signature.requested',
  'signature.completed',
  'signature.declined',
  'signature.expired',
]);

/** Sends one organization's changed contracts to its `index-contracts-<organizationId>` workflow (starting it if need be). */
function signalChanged(s: Engines, searchOnly: boolean) {
  return (organizationId: string, contractIds: string[]) =>
    startWorkflow(s, contractIndex, {
      workflowId: contractIndexWorkflowId(organizationId),
      args: [{ organizationId }],
      signal: { signal: contractChangedSignal, args: [{ contractIds: [...new Set(contractIds)], ...(searchOnly ? { searchOnly } : {}) }] },
      organizationId,
      recordId: organizationId,
    }).then(() => undefined);
}

/**
 * Re-indexing is background work and nobody waits for it, so the events of an organization
 * that arrive within this long, or while its previous signal is under way, share one signal
 * (a few per second in a burst instead of one per event: bench/README.md, webhook burst). It
 * delays only the event's relayed mark, not its deliveries.
 */
const SIGNAL_LINGER_MS = 200;

/** Per process's services (a test may relay through services of its own). */
const signallers = new WeakMap<Engines, Record<'text' | 'search', (organizationId: string, contractId: string) => Promise<void>>>();

/**
 * Keeps `contracts_kb` and the repository search index current: each contract event signals (starting it if need be) its
 * organization's `index-contracts-<organizationId>` workflow, which re-reads each contract
 * and re-indexes it (or removes it when it is gone), so events handled out of order, or
 * twice, still end in the stored state. An event is relayed once the signal that carried its
 * contract went through; when that signal fails, the event stays unrelayed and is relayed again.
 */
export const contractIndexConsumer: EventConsumer = {
  name: 'contract-index',
  async consume(s, event) {
    const kind = TEXT_EVENTS.has(event.type) ? 'text' : SEARCH_EVENTS.has(event.type) ? 'search' : null;
    if (!kind) return;
    const contractId = event.resource_type === 'contract' ? event.resource_id : (event.data as { contract_id?: unknown }).contract_id;
    if (typeof contractId !== 'string') return;
    let signal = signallers.get(s);
    if (!signal) {
      const grouped = (searchOnly: boolean) => sharedFlush(signalChanged(s, searchOnly), { lingerMs: SIGNAL_LINGER_MS });
      signallers.set(s, (signal = { text: grouped(false), search: grouped(true) }));
    }
    await signal[kind](event.organization_id.toHexString(), contractId);
  },
};
