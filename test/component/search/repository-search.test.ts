/**
 * Repository search (`GET /search/contracts`) through HTTP against the real Elasticsearch:
 * words, every filter, facet and sort, pages and cursors, highlights that cite, the CSV
 * export, read-your-writes, tenancy and bad input.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { api } from '../../support/http';
import { testEnv } from '../../support/env';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { makePdf, settled, upload } from '../../support/documents';
import { ComplianceTask } from '../../../models/compliance-task';
import { Contract } from '../../../models/contract';
import { aliasedIndices, searchAlias } from '../../../services/search/contract-search-index';
import { ensureSearchGeneration } from '../../../services/search/start-search-reindex';
import { makeContractsSearchable } from '../../../services/search/reflect-contracts';

interface Hit {
  id: string;
  title: string;
  terms: Record<string, { normalized: unknown } | null> | null;
  highlights: Array<{ field: string; document_id?: string; page?: number; fragment: string }>;
}
interface Answer {
  data: Hit[];
  total: number;
  page: number | null;
  page_size: number;
  next_cursor: string | null;
  facets: Record<string, Array<{ value: string; count: number }>>;
  detail?: string;
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('repository search', function () {
  this.timeout(180_000);
  let owner: TestUser, other: TestUser;
  /** Readers of the organization, taken in turn: each has its own rate limit. */
  let readers: TestUser[] = [];
  let turn = 0;
  const ids: Record<string, string> = {};

  const search = (query: string, u?: TestUser) =>
    api<Answer>('GET', `/search/contracts${query ? `?${query}` : ''}`, { token: (u ?? readers[turn++ % readers.length]!).token });
  const titles = async (query: string) => {
    const res = await search(query);
    expect(res.status, `${query}: ${res.body.detail ?? ''}`).to.equal(200);
    return res.body.data.map((h) => h.title);
  };
  const create = async (u: TestUser, body: Record<string, unknown>) => {
    const res = await api<{ id: string }>('POST', '/contracts', { token: u.token, body });
    expect(res.status).to.equal(201);
    return res.body.id;
  };
  const terms = (u: TestUser, id: string, t: Record<string, unknown>) =>
    api('PUT', `/contracts/${id}/terms`, {
      token: u.token,
      body: { terms: Object.fromEntries(Object.entries(t).map(([k, v]) => [k, { value: String(JSON.stringify(v)), normalized: v }])) },
    });

  before(async () => {
    [owner, other] = await Promise.all([signUp(), signUp()]);
    readers = await Promise.all(['viewer', 'viewer', 'viewer', 'member', 'admin'].map((r) => addMember(owner, r as 'viewer')));
    const vendor = await api<{ id: string }>('POST', '/vendors', { token: owner.token, body: { name: 'Acme Holdings' } });
    ids.acme = await create(owner, {
      title: 'Acme MSA',
      type: 'service_agreement',
      counterparty: 'Acme Corp',
      content: 'The supplier keeps all customer data in the EU. Data residency is guaranteed.',
      value: 1000,
      currency: 'USD',
      start_date: '2026-01-01',
      end_date: day(40),
      vendor_id: vendor.body.id,
    });
    ids.globex = await create(owner, {
      title: 'Globex NDA',
      type: 'nda',
      counterparty: 'Globex',
      content: 'Mutual confidentiality. Fees are due within thirty days.',
      value: 5000,
      currency: 'USD',
      start_date: '2025-06-01',
      end_date: '2025-12-31',
    });
    ids.initech = await create(owner, {
      title: 'Initech Lease',
      type: 'lease',
      counterparty: 'Initech',
      content: 'Office lease of the third floor.',
      value: 50000,
      currency: 'EUR',
      start_date: '2024-01-01',
      end_date: day(200),
    });
    await api('PUT', `/contracts/${ids.initech}`, { token: owner.token, body: { status: 'active' } });
    expect(
      (await terms(owner, ids.acme, { governing_law: 'New York', auto_renewal: true, end_date: day(40), non_renewal_notice_days: 20 }))
        .status,
    ).to.equal(200);
    await terms(owner, ids.globex, { governing_law: 'Delaware', auto_renewal: false, dispute_venue: 'Wilmington', payment_terms: 30 });
    await terms(owner, ids.initech, {
      governing_law: 'New York',
      termination_for_convenience: true,
      liability_cap: { amount: 500000, currency: 'EUR' },
      auto_renewal: true,
      end_date: day(-10),
      non_renewal_notice_days: 10,
    });
    // A pending signature request on Acme, an open compliance task on Globex.
    const sig = await api('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: ids.acme, signers: [{ name: 'Ann Signer', email: 'ann@example.com' }] },
    });
    expect(sig.status, JSON.stringify(sig.body)).to.equal(201);
    await ComplianceTask.create({
      organization_id: new Types.ObjectId(owner.organizationId),
      title: 'Add a DPA',
      description: 'Processing without a DPA',
      priority: 'high',
      due_date: new Date(),
      contract_id: new Types.ObjectId(ids.globex),
      contract_title: 'Globex NDA',
      regulation_type: 'GDPR',
      jurisdiction: 'EU',
      rule_id: 'gdpr-dpa',
    });
    // What a scan's `compliance.alert` sets off: the contract's document written again.
    await makeContractsSearchable(testEnv().services, owner.organizationId, [ids.globex]);
    // Another organization with an Acme contract governed by New York law: never seen.
    ids.secret = await create(other, {
      title: 'Acme Secret MSA',
      type: 'service_agreement',
      counterparty: 'Acme Corp',
      content: 'Data residency.',
    });
    await terms(other, ids.secret, { governing_law: 'New York', auto_renewal: true });
  });

  it('finds contracts by words in title, counterparty and content, with highlights', async () => {
    const res = await search('q=data%20residency');
    expect(res.status).to.equal(200);
    expect(res.body.data.map((h) => h.title)).to.deep.equal(['Acme MSA']);
    expect(res.body.total).to.equal(1);
    const [hit] = res.body.data;
    expect(hit!.highlights).to.deep.include({
      field: 'content',
      fragment: 'The supplier keeps all customer <em>data</em> in the EU. <em>Data</em> <em>residency</em> is guaranteed.',
    });
    expect(hit!.terms!.governing_law!.normalized).to.equal('New York');
    expect(await titles('q=initech')).to.deep.equal(['Initech Lease']);
  });

  it('treats Lucene syntax in q as words', async () => {
    for (const q of ['*:*', 'title:Acme', 'status:draft OR 1=1', '(', '"', 'a AND NOT b', '\\']) {
      const res = await search(`q=${encodeURIComponent(q)}`);
      expect(res.status, q).to.equal(200);
      expect(res.body.total, q).to.be.below(3);
    }
    expect((await search(`q=${encodeURIComponent('*:*')}`)).body.total).to.equal(0);
  });

  it('applies every filter, OR within a field and AND across fields', async () => {
    const cases: Array<[string, string[]]> = [
      ['status=active', ['Initech Lease']],
      ['status=draft&status=active', ['Initech Lease', 'Globex NDA', 'Acme MSA']],
      ['type=nda', ['Globex NDA']],
      ['counterparty=acme%20corp', ['Acme MSA']],
      ['owner=' + owner.user.id, ['Initech Lease', 'Globex NDA', 'Acme MSA']],
      ['currency=EUR', ['Initech Lease']],
      ['governing_law=new%20york', ['Initech Lease', 'Acme MSA']],
      ['governing_law=new%20york&status=draft', ['Acme MSA']],
      ['dispute_venue=Wilmington', ['Globex NDA']],
      ['auto_renewal=true', ['Initech Lease', 'Acme MSA']],
      ['auto_renewal=false', ['Globex NDA']],
      ['termination_for_convenience=true', ['Initech Lease']],
      ['liability_cap=present', ['Initech Lease']],
      ['liability_cap=absent', ['Globex NDA', 'Acme MSA']],
      ['liability_cap_min=100000', ['Initech Lease']],
      ['liability_cap_min=600000', []],
      ['payment_terms_days_min=15&payment_terms_days_max=45', ['Globex NDA']],
      ['signature_pending=true', ['Acme MSA']],
      ['signature_pending=false', ['Initech Lease', 'Globex NDA']],
      ['open_tasks=true', ['Globex NDA']],
      ['open_tasks=false', ['Initech Lease', 'Acme MSA']],
      ['value_min=500&value_max=6000', ['Globex NDA', 'Acme MSA']],
      ['value_min=10000', ['Initech Lease']],
      ['start_date_from=2025-01-01&start_date_to=2025-12-31', ['Globex NDA']],
      ['end_date_to=2025-12-31', ['Globex NDA']],
      [`end_date_from=${day(30)}`, ['Initech Lease', 'Acme MSA']],
      [`opt_out_deadline_from=${day(0)}&opt_out_deadline_to=${day(30)}`, ['Acme MSA']],
      [`opt_out_deadline_to=${day(-1)}`, ['Initech Lease']],
      [`created_at_from=${day(-1)}`, ['Initech Lease', 'Globex NDA', 'Acme MSA']],
      ['signed_at_from=2020-01-01', []],
    ];
    const vendor = (await search(`q=acme`)).body.data[0] as unknown as { vendor_id: string };
    cases.push([`vendor_id=${vendor.vendor_id}`, ['Acme MSA']]);
    for (const [query, expected] of cases) expect(await titles(query), query).to.deep.equal(expected);
  });

  it('counts facets exactly, renewal windows from today, over this organization only', async () => {
    const res = await search('facets=status,type,counterparty,governing_law,auto_renewal,renewal_window');
    expect(res.status).to.equal(200);
    const f = res.body.facets;
    expect(f.status).to.have.deep.members([
      { value: 'draft', count: 2 },
      { value: 'active', count: 1 },
    ]);
    expect(f.type).to.have.deep.members([
      { value: 'service_agreement', count: 1 },
      { value: 'nda', count: 1 },
      { value: 'lease', count: 1 },
    ]);
    expect(f.counterparty).to.have.deep.members([
      { value: 'Acme Corp', count: 1 },
      { value: 'Globex', count: 1 },
      { value: 'Initech', count: 1 },
    ]);
    expect(f.governing_law).to.deep.equal([
      { value: 'New York', count: 2 },
      { value: 'Delaware', count: 1 },
    ]);
    expect(f.auto_renewal).to.deep.equal([
      { value: 'true', count: 2 },
      { value: 'false', count: 1 },
    ]);
    expect(f.renewal_window).to.deep.equal([
      { value: 'overdue', count: 1 },
      { value: '30', count: 1 },
      { value: '60', count: 0 },
      { value: '90', count: 0 },
      { value: 'later', count: 0 },
    ]);
    // Facets follow the filters.
    const filtered = await search('governing_law=New%20York&facets=status');
    expect(filtered.body.facets.status).to.have.deep.members([
      { value: 'draft', count: 1 },
      { value: 'active', count: 1 },
    ]);
  });

  it('never shows another organization in hits, facets or totals', async () => {
    const mine = await search('q=acme&facets=counterparty,governing_law');
    expect(mine.body.total).to.equal(1);
    expect(mine.body.facets.counterparty).to.deep.equal([{ value: 'Acme Corp', count: 1 }]);
    const theirs = await search('q=acme&facets=counterparty', other);
    expect(theirs.body.data.map((h) => h.id)).to.deep.equal([ids.secret]);
    expect(theirs.body.total).to.equal(1);
    const all = await search('', other);
    expect(all.body.total).to.equal(1);
    expect((await search('q=secret')).body.total).to.equal(0);
    expect((await api<{ total: number }>('GET', '/contracts?search=Secret', { token: owner.token })).body.total).to.equal(0);
  });

  it('sorts by each field both ways, ties broken by id', async () => {
    const expected: Record<string, string[]> = {
      created_at: ['Acme MSA', 'Globex NDA', 'Initech Lease'],
      end_date: ['Globex NDA', 'Acme MSA', 'Initech Lease'],
      opt_out_deadline: ['Initech Lease', 'Acme MSA', 'Globex NDA'],
      value: ['Acme MSA', 'Globex NDA', 'Initech Lease'],
      title: ['Acme MSA', 'Globex NDA', 'Initech Lease'],
    };
    for (const [field, order] of Object.entries(expected)) {
      expect(await titles(`sort=${field}`), field).to.deep.equal(order);
      // Missing values stay last either way (Globex has no opt-out deadline).
      const reversed = field === 'opt_out_deadline' ? ['Acme MSA', 'Initech Lease', 'Globex NDA'] : [...order].reverse();
      expect(await titles(`sort=-${field}`), `-${field}`).to.deep.equal(reversed);
    }
    // Initech was updated last (its status).
    expect((await titles('sort=-updated_at'))[0]).to.equal('Initech Lease');
    expect(await titles('q=acme%20OR%20globex&sort=relevance')).to.deep.equal([]);
    expect(await titles('q=lease&sort=relevance')).to.deep.equal(['Initech Lease']);
  });

  it('pages with an exact total, and follows a cursor to the end', async () => {
    const first = await search('page_size=2&sort=title');
    expect(first.body).to.include({ total: 3, page: 1, page_size: 2 });
    expect(first.body.data.map((h) => h.title)).to.deep.equal(['Acme MSA', 'Globex NDA']);
    expect(await titles('page_size=2&page=2&sort=title')).to.deep.equal(['Initech Lease']);
    const next = await search(`page_size=2&sort=title&cursor=${first.body.next_cursor}`);
    expect(next.body.data.map((h) => h.title)).to.deep.equal(['Initech Lease']);
    expect(next.body).to.include({ total: 3, page: null, next_cursor: null });
    // A cursor is for its sort only.
    const wrong = await search(`page_size=2&sort=-title&cursor=${first.body.next_cursor}`);
    expect(wrong.status).to.equal(400);
  });

  it('streams every match as CSV with the key-term columns', async () => {
    const res = await fetch(`${testEnv().baseUrl}/search/contracts?format=csv&sort=title`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).to.match(
      /^id,title,type,status,counterparty,.*,governing_law,dispute_venue,auto_renewal,termination_for_convenience,opt_out_deadline,liability_cap_present,liability_cap_amount,payment_terms_days,signature_pending,open_tasks$/,
    );
    expect(lines).to.have.length(4);
    expect(lines[1]).to.match(new RegExp(`^${ids.acme},Acme MSA,service_agreement,draft,Acme Corp,`));
    expect(lines[1]).to.include(',New York,,true,,');
    expect(lines[3]).to.include(',true,500000,,false,0');
  });

  it('finds a document page and cites it', async () => {
    const pdf = await makePdf([['Cover page of the annex.'], ['Schedule B: the processor stores backups in Frankfurt only.']]);
    const up = await upload(owner.token, { name: 'annex.pdf', bytes: pdf, type: 'application/pdf' }, 'other', {
      fields: { contract_id: ids.globex! },
    });
    expect(up.status).to.equal(201);
    expect((await settled(owner.token, up.body.id)).status).to.equal('ready');
    const res = await search('q=backups%20frankfurt');
    expect(res.body.data.map((h) => h.title)).to.deep.equal(['Globex NDA']);
    expect(res.body.data[0]!.highlights).to.deep.include({
      field: 'document',
      document_id: up.body.id,
      page: 2,
      fragment: 'Schedule B: the processor stores <em>backups</em> in <em>Frankfurt</em> only.',
    });
  });

  // In the other organization: the owner's organization is near its rate limit by now.
  it("forgets a document's pages as soon as the document is deleted", async () => {
    const pdf = await makePdf([['Annex C: escrow of the source code with Harbour Escrow Ltd.']]);
    const up = await upload(other.token, { name: 'escrow.pdf', bytes: pdf, type: 'application/pdf' }, 'other', {
      fields: { contract_id: ids.secret! },
    });
    expect(up.status).to.equal(201);
    expect((await settled(other.token, up.body.id)).status).to.equal('ready');
    const found = async () => (await search('q=escrow%20harbour', other)).body.data.map((h) => h.title);
    expect(await found()).to.deep.equal(['Acme Secret MSA']);
    expect((await api('DELETE', `/documents/${up.body.id}`, { token: other.token })).status).to.equal(204);
    expect(await found()).to.deep.equal([]);
  });

  it('finds a contract right after it is created, edited or deleted (read-your-writes)', async () => {
    const id = await create(owner, { title: 'Umbrella Supply', type: 'nda', counterparty: 'Umbrella' });
    expect(await titles('q=umbrella')).to.deep.equal(['Umbrella Supply']);
    expect((await api<{ contracts: Array<{ id: string }> }>('GET', '/contracts', { token: owner.token })).body.contracts[0]!.id).to.equal(
      id,
    );
    await api('PUT', `/contracts/${id}`, { token: owner.token, body: { title: 'Umbrella Purchase' } });
    expect(await titles('q=purchase')).to.deep.equal(['Umbrella Purchase']);
    expect(await titles('q=supply')).to.deep.equal([]);
    expect((await api('DELETE', `/contracts/${id}`, { token: owner.token })).status).to.equal(204);
    expect(await titles('q=umbrella')).to.deep.equal([]);
  });

  it('answers 400 {detail} for bad input, never 500', async () => {
    const bad = [
      'unknown=1',
      'sort=bogus',
      'sort=-relevance',
      'sort=relevance',
      'facets=status,bogus',
      'status=archived',
      'auto_renewal=maybe',
      'liability_cap=some',
      'value_min=10&value_max=1',
      'value_min=abc',
      'created_at_from=2026-13-01',
      'end_date_from=2026-02-01&end_date_to=2026-01-01',
      'page_size=101',
      'page=0',
      'page=6000&page_size=20',
      `q=${'a'.repeat(10_000)}`,
      'cursor=not-a-cursor',
      'cursor=%7B%7D',
      'format=xml',
      'vendor_id=xyz',
      'q=a&q=b',
    ];
    for (const query of bad) {
      const res = await search(query);
      expect(res.status, query).to.equal(400);
      expect(res.body.detail, query).to.be.a('string').and.not.empty;
    }
    const deep = await api<Answer>('GET', '/contracts?page=6000&page_size=20', { token: owner.token });
    expect(deep.status).to.equal(400);
    expect(deep.body.detail).to.match(/^page: /);
  });

  it('lets owners alone rebuild the organization from the store: missing documents come back, stale ones go', async () => {
    const { services } = testEnv();
    const member = readers[3]!;
    expect((await api('POST', '/admin/search/reindex', { token: member.token })).status).to.equal(403);
    // Behind the service's back: one document lost, one contract gone from the store without its document.
    await services.es.delete({ index: searchAlias(services), id: ids.initech!, refresh: true });
    await Contract.deleteOne({ _id: ids.globex });
    expect(await titles('sort=title')).to.deep.equal(['Acme MSA', 'Globex NDA']);
    const res = await api<{ workflow_id: string }>('POST', '/admin/search/reindex', { token: owner.token });
    expect(res.status).to.equal(202);
    expect(await services.temporal.workflow.getHandle(res.body.workflow_id).result()).to.deep.equal({ indexed: 2 });
    expect(await titles('sort=title')).to.deep.equal(['Acme MSA', 'Initech Lease']);
    // The other organization was not touched.
    expect((await search('', other)).body.total).to.equal(1);
  });

  it('rebuilds every contract into a new index when none is built, and moves the alias to it', async () => {
    const { services } = testEnv();
    const [index] = await aliasedIndices(services);
    await services.es.indices.delete({ index: index! });
    expect((await search('')).body.total).to.equal(0);
    const workflowId = await ensureSearchGeneration(services);
    expect(workflowId).to.be.a('string');
    await services.temporal.workflow.getHandle(workflowId!).result();
    expect(await titles('sort=title')).to.deep.equal(['Acme MSA', 'Initech Lease']);
    expect((await search('', other)).body.total).to.equal(1);
    expect(await ensureSearchGeneration(services)).to.equal(null);
  });
});
