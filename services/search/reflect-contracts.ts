/**
 * Keeping the repository search index in step with the store.
 *
 * - Read-your-writes: every write to a contract or to what its search document holds (key
 *   terms, signature requests, compliance tasks, documents) is announced (models/writes.ts)
 *   and reflected before the writer carries on, with `refresh=true` (a refresh of its own, not waiting for the next of the
 *   1 s interval, which cost a write 1 s: bench/README.md): the API answers
 *   once the change is searchable (bench/README.md, repository search, measures the cost).
 * - Repair: a reflection that fails (Elasticsearch away) is logged; the contract's events
 *   reach the index workflow through the outbox (contract-index.ts), which retries, and the
 *   reindex workflow rebuilds everything from the store.
 */
import type { Model } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { onWritten, type Written } from '../../models/writes';
import { Contract } from '../../models/contract';
import { ContractTerms } from '../../models/contract-terms';
import { Signature } from '../../models/signature';
import { ComplianceTask } from '../../models/compliance-task';
import { Document } from '../../models/document';
import { readSearchDocs } from './contract-search-docs';
import { writeSearchDocs, type SearchEngines } from './contract-search-index';

/** Re-reads contracts from the store and writes their search documents (or removes them when gone). */
export async function reflectContracts(
  s: SearchEngines,
  organizationId: string,
  contractIds: readonly string[],
  refresh: boolean,
): Promise<void> {
  if (!contractIds.length) return;
  await writeSearchDocs(s, await readSearchDocs(s, organizationId, contractIds), { refresh });
}

type Owned = Model<{ contract_id: unknown; organization_id: unknown }>;
/** Records that hang off a contract: their writes change its search document. */
const DEPENDENTS = [ContractTerms, Signature, ComplianceTask, Document] as unknown as Owned[];

interface Ref {
  organization_id?: { toString(): string } | null;
  contract_id?: { toString(): string } | null;
}

/**
 * The contracts written records are or hang off, by organization: the one a record hangs off
 * now, and the one it hung off before a delete or a move (models/writes.ts `carried`). A record
 * is read back when the write did not return it, or did not name its organization.
 */
async function contractsOf(model: Owned | null, written: Written[]): Promise<Map<string, string[]>> {
  const refs = await Promise.all(
    written.map(async (w): Promise<Array<[string, string]>> => {
      if (!model && w.organizationId) return [[w.organizationId.toHexString(), w.id.toHexString()]];
      const stored =
        (w.stored as Ref | undefined) ??
        (await (model ?? (Contract as unknown as Owned)).findOne({ _id: w.id }, { contract_id: 1, organization_id: 1 }).lean<Ref>());
      const organizationId = stored?.organization_id?.toString() ?? w.organizationId?.toHexString();
      if (!organizationId) return [];
      const contracts = model ? [stored?.contract_id, (w.before as Ref | undefined)?.contract_id] : [w.id];
      return contracts.flatMap((c): Array<[string, string]> => (c == null ? [] : [[organizationId, c.toString()]]));
    }),
  );
  const byOrganization = new Map<string, string[]>();
  for (const [org, id] of refs.flat()) byOrganization.set(org, [...new Set([...(byOrganization.get(org) ?? []), id])]);
  return byOrganization;
}

let engines: (SearchEngines & Pick<Engines, 'logger'>) | null = null;
let following = false;

/** Reflects the contracts of a write; a failure is logged, never thrown at the writer (the write has happened). */
async function reflectWritten(model: Owned | null, written: Written[]): Promise<void> {
  const s = engines;
  if (!s) return;
  try {
    const byOrganization = await contractsOf(model, written);
    await Promise.all([...byOrganization].map(([organizationId, ids]) => reflectContracts(s, organizationId, ids, true)));
  } catch (err) {
    s.logger.warn({ err }, 'search index not updated; the outbox and the reindex repair it');
  }
}

/**
 * This process reflects writes into the search index of `s` (the last services given, as for
 * the relay: one per process in production).
 */
export function followSearchWrites(s: SearchEngines & Pick<Engines, 'logger'>): void {
  engines = s;
  if (following) return;
  following = true;
  onWritten(Contract, (written) => reflectWritten(null, written));
  for (const model of DEPENDENTS)
    onWritten(model as unknown as Parameters<typeof onWritten>[0], (written) => reflectWritten(model, written));
}

/** Stops reflecting (a bench loading the store in bulk indexes it itself). */
export function pauseSearchWrites(): void {
  engines = null;
}
