/**
 * A contract's search document, read from the store: the contract, its key terms, whether a
 * signature request is pending, its open compliance tasks, and the text of its ready
 * documents page by page (from their chunks in the vector store). Each read is by the
 * contract's id (an equality the embedded store pushes down), never `$in` over many.
 */
import { trusted } from 'mongoose';
import { dayOf } from '../../platform/dates';
import { orgFilter } from '../../models/base';
import { Contract, contractView, type ContractDoc } from '../../models/contract';
import { ContractTerms } from '../../models/contract-terms';
import { Signature } from '../../models/signature';
import { ComplianceTask } from '../../models/compliance-task';
import { Document } from '../../models/document';
import type { Collection } from './vector-store';
import { substringGrams } from './substrings';
import type { SearchDoc, SearchEngines, SearchWrite } from './contract-search-index';

/** Document text kept per contract: beyond it, later pages are not searched (the mapping stays lean). */
const MAX_PAGES_TEXT = 1_000_000;
/** Contracts read from the store at once. */
const READS_IN_FLIGHT = 8;
/** A search hit's preview of the text: what a result list shows, never the text itself. */
export const SNIPPET_CHARS = 300;

/** The text's first SNIPPET_CHARS characters, white space collapsed, cut at a word's end ("…" when cut). */
export function snippetOf(text: string): string {
  const flat = text
    .slice(0, SNIPPET_CHARS * 4)
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  // Never half a surrogate pair.
  const cut = flat.slice(0, SNIPPET_CHARS - 1).replace(/[\ud800-\udbff]$/, '');
  const space = cut.lastIndexOf(' ');
  return `${space > SNIPPET_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

interface TermValue {
  normalized?: unknown;
}
export type TermsMap = Partial<Record<string, TermValue | null>>;

const norm = (terms: TermsMap | null | undefined, key: string): unknown => terms?.[key]?.normalized ?? null;

export interface Extras {
  terms: { terms: TermsMap; opt_out_deadline: string | null } | null;
  signaturePending: boolean;
  openTasks: number;
  pages: Array<{ document_id: string; page: number; text: string }>;
}

/** The indexed document of a contract and what hangs off it. */
export function searchDocOf(c: ContractDoc, extras: Extras, readAt: number): SearchDoc {
  const { content, ...record } = contractView(c) as ReturnType<typeof contractView> & { content?: string };
  const terms = extras.terms?.terms ?? null;
  const cap = norm(terms, 'liability_cap') as { amount?: number } | null;
  const day = (d: Date | null | undefined) => (d ? dayOf(d) : null);
  return {
    id: c.id,
    organization_id: c.organization_id.toHexString(),
    title: c.title,
    counterparty: c.counterparty,
    substrings: [substringGrams(c.title), substringGrams(c.counterparty)],
    content: content ?? '',
    pages: extras.pages,
    type: c.type,
    status: c.status,
    currency: c.currency,
    vendor_id: c.vendor_id?.toHexString() ?? null,
    created_by: c.created_by?.toHexString() ?? null,
    value: c.value ?? null,
    start_date: day(c.start_date),
    end_date: day(c.end_date),
    signed_at: c.signed_at ?? null,
    created_at: c.created_at,
    updated_at: c.updated_at,
    governing_law: norm(terms, 'governing_law'),
    dispute_venue: norm(terms, 'dispute_venue'),
    auto_renewal: norm(terms, 'auto_renewal'),
    termination_for_convenience: norm(terms, 'termination_for_convenience'),
    opt_out_deadline: extras.terms?.opt_out_deadline ?? null,
    liability_cap_present: cap !== null,
    liability_cap_amount: typeof cap?.amount === 'number' ? cap.amount : null,
    payment_terms_days: norm(terms, 'payment_terms'),
    signature_pending: extras.signaturePending,
    open_tasks: extras.openTasks,
    indexed_at: new Date(readAt).toISOString(),
    // The snippet rides in the unindexed record: an index of an older generation takes it too.
    record: { ...record, snippet: snippetOf(content || extras.pages[0]?.text || '') },
    terms,
  };
}

interface ChunkSource {
  source_id: string;
  page: number;
  text: string;
  start_offset: number;
  end_offset: number;
}

/** The text of documents page by page, rebuilt from their overlapping chunks. */
export async function documentPages(s: SearchEngines, documentIds: string[]): Promise<Extras['pages']> {
  if (!documentIds.length) return [];
  const chunks: ChunkSource[] = [];
  // The collections uploads go to (vector-store `indexName`).
  const indices = (['user_documents', 'knowledge_base'] satisfies Collection[]).map((c) => `${s.config.ELASTICSEARCH_INDEX_PREFIX}${c}`);
  let res = await s.es.search<ChunkSource>({
    index: indices,
    ignore_unavailable: true,
    scroll: '1m',
    size: 1000,
    _source: ['source_id', 'page', 'text', 'start_offset', 'end_offset'],
    // Ids the store read within one organization.
    query: { bool: { filter: [{ terms: { source_id: documentIds } }] } },
    sort: [{ start_offset: 'asc' }],
  });
  try {
    let total = 0;
    while (res.hits.hits.length && total < MAX_PAGES_TEXT) {
      for (const h of res.hits.hits) {
        if (!h._source) continue;
        chunks.push(h._source);
        total += h._source.text.length;
      }
      res = await s.es.scroll<ChunkSource>({ scroll_id: res._scroll_id!, scroll: '1m' });
    }
  } finally {
    if (res._scroll_id) await s.es.clearScroll({ scroll_id: res._scroll_id }).catch(() => undefined);
  }
  const pages = new Map<string, { document_id: string; page: number; text: string; covered: number }>();
  for (const c of chunks) {
    const key = `${c.source_id}:${c.page}`;
    let p = pages.get(key);
    if (!p) pages.set(key, (p = { document_id: c.source_id, page: c.page, text: '', covered: c.start_offset }));
    // Chunks of a page overlap: add only what lies past the text so far.
    if (c.end_offset > p.covered) p.text += c.text.slice(Math.max(0, p.covered - c.start_offset));
    p.covered = Math.max(p.covered, c.end_offset);
  }
  return [...pages.values()].map(({ document_id, page, text }) => ({ document_id, page, text }));
}

/** What hangs off one contract, each read by its id. */
async function extrasOf(s: SearchEngines, organizationId: string, contractId: string): Promise<Extras> {
  const byContract = { ...orgFilter(organizationId), contract_id: contractId };
  const [terms, pending, tasks, docs] = await Promise.all([
    ContractTerms.findOne(byContract, { terms: 1, opt_out_deadline: 1 }).lean(),
    Signature.exists({ ...byContract, status: 'pending' }),
    ComplianceTask.countDocuments({ ...byContract, status: trusted({ $ne: 'resolved' }) }),
    Document.find({ ...byContract, status: 'ready' }, { _id: 1 }).lean(),
  ]);
  return {
    terms: terms ? { terms: terms.terms as TermsMap, opt_out_deadline: terms.opt_out_deadline ?? null } : null,
    signaturePending: pending !== null,
    openTasks: tasks,
    pages: await documentPages(
      s,
      docs.map((d) => d._id.toHexString()),
    ),
  };
}

/** The documents of some contracts of an organization as the store holds them now, and those gone. */
export async function readSearchDocs(s: SearchEngines, organizationId: string, contractIds: readonly string[]): Promise<SearchWrite> {
  const readAt = Date.now();
  const docs: SearchDoc[] = [];
  const deleted: string[] = [];
  const queue = [...new Set(contractIds)];
  await Promise.all(
    Array.from({ length: Math.min(READS_IN_FLIGHT, queue.length) }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const contract = await Contract.findOne({ _id: id, ...orgFilter(organizationId) });
        if (!contract) deleted.push(id);
        else docs.push(searchDocOf(contract, await extrasOf(s, organizationId, id), readAt));
      }
    }),
  );
  return { docs, deleted, readAt };
}
