/**
 * Rebuilding the repository search index from the store, a part at a time (the reindex
 * workflow, workflows/search-reindex.ts, checkpoints between parts). A part streams
 * contracts in `_id` order past its cursor, joined with their key terms streamed in the same
 * order (two queries, not one per contract), plus the contracts with a pending signature, open
 * compliance tasks or ready documents, read once per part. Per-contract reads (`$in` over
 * many ids) would cost the embedded store a scan each.
 */
import { trusted, Types } from 'mongoose';
import { orgFilter } from '../../models/base';
import { Contract } from '../../models/contract';
import { ContractTerms } from '../../models/contract-terms';
import { Signature } from '../../models/signature';
import { ComplianceTask } from '../../models/compliance-task';
import { Document } from '../../models/document';
import { documentPages, searchDocOf, type Extras, type TermsMap } from './contract-search-docs';
import { createGenerationIndex, searchAlias, swapAlias, writeSearchDocs, type SearchEngines } from './contract-search-index';

/** Contracts per bulk write. */
export const REBUILD_PAGE = 500;

export interface RebuildPart {
  /** One organization's contracts (an owner's `POST /admin/search/reindex`), else every contract. */
  organizationId?: string;
  /** The last contract id written; the part starts after it. */
  after: string | null;
  /** The part stops after this long, returning its cursor. */
  budgetMs: number;
  /** Only this index (a new generation's); else every write target. */
  index?: string;
}

export interface RebuildProgress {
  after: string | null;
  indexed: number;
  done: boolean;
}

const hex = (id: Types.ObjectId | null | undefined) => id?.toHexString() ?? null;

/** Contract id → what hangs off it besides terms, for a whole scope at once. */
async function sideFacts(organizationId: string | undefined) {
  const scope = organizationId ? orgFilter(organizationId) : {};
  const [pending, tasks, docs] = await Promise.all([
    Signature.find({ ...scope, status: 'pending' }, { contract_id: 1 }).lean(),
    ComplianceTask.find({ ...scope, status: trusted({ $ne: 'resolved' }) }, { contract_id: 1 }).lean(),
    Document.find({ ...scope, status: 'ready', contract_id: trusted({ $ne: null }) }, { contract_id: 1 }).lean(),
  ]);
  const openTasks = new Map<string, number>();
  for (const t of tasks) openTasks.set(hex(t.contract_id)!, (openTasks.get(hex(t.contract_id)!) ?? 0) + 1);
  const documents = new Map<string, string[]>();
  for (const d of docs) documents.set(hex(d.contract_id)!, [...(documents.get(hex(d.contract_id)!) ?? []), d._id.toHexString()]);
  return { pending: new Set(pending.map((p) => hex(p.contract_id))), openTasks, documents };
}

/** Writes contracts after `after` until done or out of budget. */
export async function rebuildSearchPart(
  s: SearchEngines,
  part: RebuildPart,
  onPage: (progress: RebuildProgress) => void = () => undefined,
): Promise<RebuildProgress> {
  const started = Date.now();
  const scope = part.organizationId ? orgFilter(part.organizationId) : {};
  const after = part.after ? new Types.ObjectId(part.after) : null;
  const facts = await sideFacts(part.organizationId);
  const contracts = Contract.find({ ...scope, ...(after ? { _id: trusted({ $gt: after }) } : {}) })
    .sort({ _id: 1 })
    .cursor({ batchSize: REBUILD_PAGE });
  const terms = ContractTerms.find(
    { ...scope, ...(after ? { contract_id: trusted({ $gt: after }) } : {}) },
    { contract_id: 1, terms: 1, opt_out_deadline: 1 },
  )
    .sort({ contract_id: 1 })
    .lean()
    .cursor({ batchSize: REBUILD_PAGE });
  let nextTerms = await terms.next();
  let progress: RebuildProgress = { after: part.after, indexed: 0, done: false };
  try {
    for (;;) {
      const readAt = Date.now();
      const page = [];
      for (let c = await contracts.next(); c; c = page.length < REBUILD_PAGE ? await contracts.next() : null) {
        page.push(c);
        if (page.length === REBUILD_PAGE) break;
      }
      if (!page.length) return { ...progress, done: true };
      const docIds = page.flatMap((c) => facts.documents.get(c.id) ?? []);
      const pages = await documentPages(s, docIds);
      const written = [];
      for (const c of page) {
        while (nextTerms && nextTerms.contract_id.toHexString() < c.id) nextTerms = await terms.next();
        const t = nextTerms?.contract_id.toHexString() === c.id ? nextTerms : null;
        const own = new Set(facts.documents.get(c.id) ?? []);
        const extras: Extras = {
          terms: t ? { terms: t.terms as TermsMap, opt_out_deadline: t.opt_out_deadline ?? null } : null,
          signaturePending: facts.pending.has(c.id),
          openTasks: facts.openTasks.get(c.id) ?? 0,
          pages: pages.filter((p) => own.has(p.document_id)),
        };
        written.push(searchDocOf(c, extras, readAt));
      }
      await writeSearchDocs(
        s,
        { docs: written, deleted: [], readAt },
        { refresh: false, ...(part.index ? { indices: [part.index] } : {}) },
      );
      progress = { after: page.at(-1)!.id, indexed: progress.indexed + page.length, done: false };
      onPage(progress);
      if (Date.now() - started > part.budgetMs) return progress;
    }
  } finally {
    await Promise.allSettled([contracts.close(), terms.close()]);
  }
}

/** A new generation's index, to be filled before the alias moves to it. */
export const prepareSearchRebuild = (s: SearchEngines) => createGenerationIndex(s);

/** The alias moves to the filled index; the old one is removed. */
export const finishSearchRebuild = (s: SearchEngines) => swapAlias(s);

/**
 * After an organization's rebuild, its documents the rebuild did not write are of contracts
 * gone. Deleted a page at a time (the minimal distribution has no delete-by-query), each at
 * its own version, so a document rewritten meanwhile stays.
 */
export async function pruneSearchDocs(s: SearchEngines, organizationId: string, before: string): Promise<number> {
  const index = searchAlias(s);
  await s.es.indices.refresh({ index });
  const query = { bool: { filter: [{ term: { organization_id: organizationId } }, { range: { indexed_at: { lt: before } } }] } };
  let deleted = 0;
  for (;;) {
    const page = await s.es.search({ index, query, size: 1000, _source: false, version: true });
    if (!page.hits.hits.length) return deleted;
    const res = await s.es.bulk({
      operations: page.hits.hits.map((h) => ({
        delete: { _index: h._index, _id: h._id!, version: h._version!, version_type: 'external_gte' as const },
      })),
      refresh: true,
    });
    deleted += res.items.filter((i) => i.delete?.result === 'deleted').length;
    // Nothing deleted: each was rewritten meanwhile, and is no longer older than the run.
    if (!res.items.some((i) => i.delete?.result === 'deleted')) return deleted;
  }
}
