import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { waitFor } from '../../support/processes';
import { Types } from 'mongoose';
import { Event } from '../../../models/event';
import { Contract } from '../../../models/contract';
import { IntegrationLink } from '../../../models/integration-link';
import { emitContractEvent } from '../../../services/contracts/contract-events';
import { contractDeletionWorkflowId } from '../../../workflows/contract-deletion.shared';

interface ContractBody {
  id: string;
  title: string;
  type: string;
  status: string;
  counterparty: string;
  party_name: string | null;
  content: string;
  vendor_id: string | null;
  risk_score: number | null;
  value: number | null;
  currency: string;
  start_date: string | null;
  end_date: string | null;
  created_by: string;
  organization_id: string;
  created_at: string;
  updated_at: string;
  detail?: string;
}
interface ContractList {
  contracts: Array<Partial<ContractBody>>;
  total: number;
  page: number;
  page_size: number;
  detail?: string;
}

const create = (u: TestUser, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api<ContractBody>('POST', '/contracts', { token: u.token, body, headers });

const eventsOf = (resourceId: string) => Event.find({ resource_id: resourceId }).sort({ occurred_at: 1 }).lean();

describe('contracts', () => {
  describe('create, get, update, delete', () => {
    let owner: TestUser;
    before(async () => {
      owner = await signUp();
    });

    it('creates a draft from the minimal request and records contract.created without the content', async () => {
      const res = await create(owner, {
        title: 'MSA with Acme',
        type: 'service_agreement',
        counterparty: 'Acme Corp',
        content: 'Secret terms.',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        title: 'MSA with Acme',
        type: 'service_agreement',
        status: 'draft',
        counterparty: 'Acme Corp',
        currency: 'USD',
        risk_score: null,
        created_by: owner.user.id,
        organization_id: owner.organizationId,
      });
      expect(res.body.id).to.match(/^[0-9a-f]{24}$/);
      expect(res.body.created_at).to.match(/Z$/);
      expect(res.body.updated_at).to.match(/Z$/);
      const [event] = await eventsOf(res.body.id);
      expect(event!.type).to.equal('contract.created');
      expect(event!.data).to.deep.equal({
        id: res.body.id,
        title: 'MSA with Acme',
        type: 'service_agreement',
        status: 'draft',
        counterparty: 'Acme Corp',
      });
      expect(event!.actor).to.include({ type: 'user', id: owner.user.id });
    });

    it('keeps the extra fields of the decisions and formats dates as YYYY-MM-DD', async () => {
      const res = await create(owner, {
        title: 'Lease',
        type: 'lease',
        counterparty: 'Landlord LLC',
        value: 12000,
        currency: 'EUR',
        start_date: '2025-01-01',
        end_date: '2026-12-31',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ value: 12000, currency: 'EUR', start_date: '2025-01-01', end_date: '2026-12-31' });
      const bad = await create(owner, {
        title: 'Lease',
        type: 'lease',
        counterparty: 'L',
        start_date: '2026-01-01',
        end_date: '2025-01-01',
      });
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.equal({ detail: 'end_date: must not be before start_date' });
    });

    it('ignores fields a client may not set (organization, score, author, status)', async () => {
      const res = await create(owner, {
        title: 'T',
        type: 'nda',
        counterparty: 'C',
        organization_id: '0123456789abcdef01234567',
        risk_score: 3,
        created_by: '0123456789abcdef01234567',
        status: 'active',
        signed_at: '2024-01-01T00:00:00Z',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        organization_id: owner.organizationId,
        risk_score: null,
        created_by: owner.user.id,
        status: 'draft',
        signed_at: null,
      });
    });

    const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
      ['a missing title', { type: 'nda', counterparty: 'C' }, /^title: /],
      ['a missing counterparty', { title: 'T', type: 'nda' }, /^counterparty: /],
      [
        'a type outside the five',
        { title: 'T', type: 'purchase_order', counterparty: 'C' },
        /^type: must be one of nda, service_agreement, employment, consulting, lease$/,
      ],
      ['a title of the wrong type', { title: 42, type: 'nda', counterparty: 'C' }, /^title: /],
      ['a query operator as a value', { title: { $gt: '' }, type: 'nda', counterparty: 'C' }, /^title: /],
      ['an empty title', { title: '  ', type: 'nda', counterparty: 'C' }, /^title: must not be empty$/],
      ['a malformed date', { title: 'T', type: 'nda', counterparty: 'C', end_date: '31/12/2025' }, /^end_date: must be a date YYYY-MM-DD$/],
      ['a bad currency', { title: 'T', type: 'nda', counterparty: 'C', currency: 'dollars' }, /^currency: /],
      [
        'an unknown vendor',
        { title: 'T', type: 'nda', counterparty: 'C', vendor_id: '0123456789abcdef01234567' },
        /^vendor_id: no such vendor$/,
      ],
    ];
    for (const [what, body, detail] of invalid) {
      it(`refuses ${what} with 400 naming the field`, async () => {
        const res = await create(owner, body);
        expect(res.status).to.equal(400);
        expect(res.body.detail).to.match(detail);
      });
    }

    it('gets, partially updates (any status) and records contract.updated with what changed', async () => {
      const { body: c } = await create(owner, { title: 'Consulting', type: 'consulting', counterparty: 'Jane Doe', content: 'v1' });
      expect((await api<ContractBody>('GET', `/contracts/${c.id}`, { token: owner.token })).body).to.deep.equal(c);
      for (const status of ['active', 'completed', 'expired', 'draft']) {
        const res = await api<ContractBody>('PUT', `/contracts/${c.id}`, { token: owner.token, body: { status, risk_score: 99 } });
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ status, title: 'Consulting', content: 'v1', risk_score: null });
      }
      const res = await api<ContractBody>('PUT', `/contracts/${c.id}`, {
        token: owner.token,
        body: { title: 'Consulting 2025', content: 'v2' },
      });
      expect(res.body).to.include({ title: 'Consulting 2025', content: 'v2', status: 'draft', counterparty: 'Jane Doe' });
      const updates = (await eventsOf(c.id)).filter((e) => e.type === 'contract.updated');
      expect(updates).to.have.length(5);
      expect(updates[4]!.data).to.deep.include({ title: 'Consulting 2025', changed_fields: ['title', 'content'] });
      expect(updates[4]!.data).not.to.have.property('content');

      const bad = await api('PUT', `/contracts/${c.id}`, { token: owner.token, body: { status: 'signed' } });
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.equal({ detail: 'status: must be one of draft, active, completed, expired' });
    });

    it('deletes with 204 and no body, records contract.deleted, then answers 404', async () => {
      const { body: c } = await create(owner, { title: 'Old NDA', type: 'nda', counterparty: 'Initech' });
      const res = await api('DELETE', `/contracts/${c.id}`, { token: owner.token });
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expect((await api('GET', `/contracts/${c.id}`, { token: owner.token })).status).to.equal(404);
      expect((await eventsOf(c.id)).map((e) => e.type)).to.deep.equal(['contract.created', 'contract.deleted']);
    });

    it('answers unknown and malformed ids with 404', async () => {
      for (const id of ['0123456789abcdef01234567', 'not-an-id']) {
        const res = await api('GET', `/contracts/${id}`, { token: owner.token });
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({ detail: 'Contract not found' });
      }
    });

    it('needs a bearer credential', async () => {
      expect((await api('GET', '/contracts')).status).to.equal(401);
    });
  });

  describe('list', () => {
    let owner: TestUser;
    before(async () => {
      owner = await signUp();
      const rows: Array<[string, string, string]> = [
        ['Acme MSA', 'service_agreement', 'Acme Corp'],
        ['Globex NDA', 'nda', 'Globex'],
        ['Lease HQ', 'lease', 'ACME Properties'],
        ['Price (v2.0) [final]', 'consulting', 'Umbrella'],
        ['Hire: Jane', 'employment', 'Jane Roe'],
      ];
      for (const [title, type, counterparty] of rows) await create(owner, { title, type, counterparty });
      const { body: list } = await api<ContractList>('GET', '/contracts?search=Lease', { token: owner.token });
      await api('PUT', `/contracts/${list.contracts[0]!.id}`, { token: owner.token, body: { status: 'active' } });
    });

    const list = (query: string) => api<ContractList>('GET', `/contracts${query}`, { token: owner.token });

    it('lists newest first with defaults page 1 and page_size 20, items in the spec shape', async () => {
      const res = await list('');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ total: 5, page: 1, page_size: 20 });
      expect(res.body.contracts.map((c) => c.title)).to.deep.equal([
        'Hire: Jane',
        'Price (v2.0) [final]',
        'Lease HQ',
        'Globex NDA',
        'Acme MSA',
      ]);
      expect(res.body.contracts[0]).to.have.keys(
        'id',
        'title',
        'type',
        'status',
        'counterparty',
        'risk_score',
        'created_at',
        'updated_at',
        'vendor_id',
      );
    });

    it('pages, and reduces a page_size above 100 to 100', async () => {
      const page2 = await list('?page=2&page_size=2');
      expect(page2.body).to.include({ total: 5, page: 2, page_size: 2 });
      expect(page2.body.contracts.map((c) => c.title)).to.deep.equal(['Lease HQ', 'Globex NDA']);
      expect((await list('?page_size=500')).body.page_size).to.equal(100);
    });

    for (const q of ['?page=0', '?page=abc', '?page_size=0', '?page_size=1.5', '?page=-1', '?status=signed']) {
      it(`refuses ${q} with 400`, async () => {
        const res = await list(q);
        expect(res.status).to.equal(400);
        expect(res.body.detail).to.match(/^(page|page_size|status): /);
      });
    }

    it('filters by status and type', async () => {
      expect((await list('?status=active')).body.contracts.map((c) => c.title)).to.deep.equal(['Lease HQ']);
      expect((await list('?status=draft')).body.total).to.equal(4);
      expect((await list('?type=nda')).body.contracts.map((c) => c.title)).to.deep.equal(['Globex NDA']);
      expect((await list('?type=nda&status=active')).body.total).to.equal(0);
    });

    it('searches title and counterparty case-insensitively, with regex characters taken literally', async () => {
      expect((await list('?search=acme')).body.contracts.map((c) => c.title)).to.deep.equal(['Lease HQ', 'Acme MSA']);
      expect((await list(`?search=${encodeURIComponent('(v2.0) [')}`)).body.contracts.map((c) => c.title)).to.deep.equal([
        'Price (v2.0) [final]',
      ]);
      expect((await list(`?search=${encodeURIComponent('.*')}`)).body.total).to.equal(0);
      expect((await list(`?search=${encodeURIComponent('(')}`)).status).to.equal(200);
    });
  });

  describe('roles and organizations', () => {
    let owner: TestUser, admin: TestUser, member: TestUser, viewer: TestUser, stranger: TestUser;
    let id: string;
    before(async () => {
      owner = await signUp();
      [admin, member, viewer, stranger] = await Promise.all([
        addMember(owner, 'admin'),
        addMember(owner, 'member'),
        addMember(owner, 'viewer'),
        signUp(),
      ]);
      id = (
        await create(owner, {
          title: 'Shared',
          type: 'nda',
          counterparty: 'Globex',
          content: 'The parties keep Confidential Information confidential.',
        })
      ).body.id;
    });

    it('lets a viewer read but not write, draft or analyze', async () => {
      expect((await api('GET', '/contracts', { token: viewer.token })).status).to.equal(200);
      expect((await api('GET', `/contracts/${id}`, { token: viewer.token })).status).to.equal(200);
      expect((await create(viewer, { title: 'T', type: 'nda', counterparty: 'C' })).status).to.equal(403);
      expect((await api('PUT', `/contracts/${id}`, { token: viewer.token, body: { title: 'x' } })).status).to.equal(403);
      expect((await api('POST', `/contracts/${id}/draft-ai`, { token: viewer.token, body: { party_name: 'Acme' } })).status).to.equal(403);
      expect((await api('POST', `/contracts/${id}/analyze`, { token: viewer.token })).status).to.equal(403);
      expect((await api('DELETE', `/contracts/${id}`, { token: viewer.token })).status).to.equal(403);
    });

    it('lets a member create and edit but not delete; an admin deletes', async () => {
      const mine = await create(member, { title: 'Member NDA', type: 'nda', counterparty: 'C' });
      expect(mine.status).to.equal(201);
      expect(mine.body.created_by).to.equal(member.user.id);
      expect((await api('PUT', `/contracts/${mine.body.id}`, { token: member.token, body: { status: 'active' } })).status).to.equal(200);
      const refused = await api('DELETE', `/contracts/${mine.body.id}`, { token: member.token });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.have.property('detail');
      expect((await api('DELETE', `/contracts/${mine.body.id}`, { token: admin.token })).status).to.equal(204);
    });

    it('answers another organization with 404 on every operation and keeps it out of lists', async () => {
      for (const [method, path] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/draft-ai'],
        ['POST', '/analyze'],
      ] as const) {
        const res = await api(method, `/contracts/${id}${path}`, {
          token: stranger.token,
          body: method === 'GET' || method === 'DELETE' ? undefined : { title: 'x', party_name: 'x' },
        });
        expect(res.status, `${method} ${path}`).to.equal(404);
      }
      expect((await api<ContractList>('GET', '/contracts', { token: stranger.token })).body.total).to.equal(0);
      expect((await api<ContractBody>('GET', `/contracts/${id}`, { token: owner.token })).body.title).to.equal('Shared');
    });
  });

  describe('AI drafting and analysis', () => {
    let owner: TestUser;
    before(async () => {
      owner = await signUp();
    });

    it('drafts content with the parties and the requested term', async () => {
      const { body: c } = await create(owner, { title: 'Globex NDA', type: 'nda', counterparty: 'Globex Inc' });
      const res = await api<ContractBody>('POST', `/contracts/${c.id}/draft-ai`, {
        token: owner.token,
        body: { prompt: 'Mutual NDA for a product pilot, 3 years', party_name: 'Acme Corp' },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: c.id, party_name: 'Acme Corp', status: 'draft' });
      expect(res.body.content).to.include('Acme Corp').and.include('Globex Inc').and.include('3 years');
      expect((await api<ContractBody>('GET', `/contracts/${c.id}`, { token: owner.token })).body.content).to.equal(res.body.content);
      const updated = (await eventsOf(c.id)).find((e) => e.type === 'contract.updated');
      expect(updated!.data).to.include({ id: c.id, title: 'Globex NDA' });
    });

    it('needs a party name when the contract has none, and validates the prompt', async () => {
      const { body: c } = await create(owner, { title: 'X', type: 'nda', counterparty: 'Y' });
      const res = await api('POST', `/contracts/${c.id}/draft-ai`, { token: owner.token, body: { prompt: 'NDA' } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ detail: 'party_name: required, since the contract has none' });
      expect(
        (await api('POST', `/contracts/${c.id}/draft-ai`, { token: owner.token, body: { prompt: 7, party_name: 'A' } })).status,
      ).to.equal(400);
    });

    it('analyzes into exactly the spec shape, stores the score on the contract and in lists, and records contract.analyzed', async () => {
      const content =
        'Acme shall provide services to Globex. The liability of Acme shall be unlimited. This Agreement renews automatically each year.';
      const { body: c } = await create(owner, { title: 'Risky MSA', type: 'service_agreement', counterparty: 'Globex', content });
      const res = await api<{ risk_score: number; analysis: Record<string, unknown> }>('POST', `/contracts/${c.id}/analyze`, {
        token: owner.token,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.have.keys('risk_score', 'analysis');
      expect(res.body.analysis).to.have.keys('risk_level', 'key_risks', 'missing_clauses', 'compliance_flags');
      expect(res.body.risk_score).to.be.a('number').within(0, 100);
      expect(res.body.analysis.missing_clauses).to.include.members(['Governing law', 'Indemnification', 'Termination']);
      expect(res.body.analysis.key_risks).to.deep.include({
        clause: 'The liability of Acme shall be unlimited.',
        risk: 'Liability is unlimited, so a single claim could exceed the value of the contract many times over.',
        recommendation:
          'Cap aggregate liability (e.g. at the fees paid in the prior 12 months) with narrow carve-outs for fraud and wilful misconduct.',
      });
      expect(res.body.analysis.risk_level).to.equal('critical');

      const list = await api<ContractList>('GET', '/contracts?search=Risky', { token: owner.token });
      expect(list.body.contracts[0]!.risk_score).to.equal(res.body.risk_score);
      const event = (await eventsOf(c.id)).find((e) => e.type === 'contract.analyzed');
      expect(event!.data).to.deep.equal({
        id: c.id,
        title: 'Risky MSA',
        type: 'service_agreement',
        status: 'draft',
        counterparty: 'Globex',
        risk_score: res.body.risk_score,
        risk_level: 'critical',
      });
    });

    it('a drafted contract analyzes as low risk', async () => {
      const { body: c } = await create(owner, { title: 'Consulting', type: 'consulting', counterparty: 'Jane Roe', party_name: 'Acme' });
      await api('POST', `/contracts/${c.id}/draft-ai`, { token: owner.token, body: {} });
      const res = await api<{ risk_score: number; analysis: { risk_level: string; missing_clauses: string[] } }>(
        'POST',
        `/contracts/${c.id}/analyze`,
        { token: owner.token },
      );
      expect(res.body.analysis.missing_clauses).to.deep.equal([]);
      expect(res.body.analysis.risk_level).to.equal('low');
    });

    it('refuses to analyze a contract without text', async () => {
      const { body: c } = await create(owner, { title: 'Empty', type: 'nda', counterparty: 'Y' });
      const res = await api('POST', `/contracts/${c.id}/analyze`, { token: owner.token });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.match(/^content: /);
    });
  });

  describe('Idempotency-Key', () => {
    let owner: TestUser, other: TestUser;
    before(async () => {
      [owner, other] = await Promise.all([signUp(), signUp()]);
    });
    const count = async (u: TestUser, search: string) =>
      (await api<ContractList>('GET', `/contracts?search=${search}`, { token: u.token })).body.total;

    it('replays the first response for a repeat, creating one contract', async () => {
      const key = randomUUID();
      const body = { title: 'Idem-1', type: 'nda', counterparty: 'C' };
      const first = await create(owner, body, { 'idempotency-key': key });
      const again = await create(owner, body, { 'idempotency-key': key });
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body).to.deep.equal(first.body);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      expect(await count(owner, 'Idem-1')).to.equal(1);
      expect((await Event.find({ resource_id: first.body.id, type: 'contract.created' })).length).to.equal(1);
    });

    it('answers 409 for the same key with a different body', async () => {
      const key = randomUUID();
      await create(owner, { title: 'Idem-2', type: 'nda', counterparty: 'C' }, { 'idempotency-key': key });
      const res = await create(owner, { title: 'Idem-2b', type: 'nda', counterparty: 'C' }, { 'idempotency-key': key });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal({ detail: 'Idempotency-Key: already used for a different request' });
    });

    it('lets concurrent duplicates create exactly one contract (the others replay or get 409)', async () => {
      const key = randomUUID();
      const body = { title: 'Idem-3', type: 'nda', counterparty: 'C' };
      const results = await Promise.all(Array.from({ length: 6 }, () => create(owner, body, { 'idempotency-key': key })));
      const created = results.filter((r) => r.status === 201);
      expect(created.length).to.be.at.least(1);
      expect(new Set(created.map((r) => r.body.id)).size).to.equal(1);
      expect(results.every((r) => r.status === 201 || (r.status === 409 && /still in progress/.test(r.body.detail ?? '')))).to.be.true;
      expect(await count(owner, 'Idem-3')).to.equal(1);
    });

    it('scopes keys per principal, keeps validation failures, and checks the key', async () => {
      const key = randomUUID();
      const body = { title: 'Idem-4', type: 'nda', counterparty: 'C' };
      expect((await create(owner, body, { 'idempotency-key': key })).status).to.equal(201);
      expect((await create(other, body, { 'idempotency-key': key })).status).to.equal(201);
      expect(await count(other, 'Idem-4')).to.equal(1);

      const badKey = randomUUID();
      const bad = await create(owner, { title: 'Idem-5', type: 'bogus', counterparty: 'C' }, { 'idempotency-key': badKey });
      expect(bad.status).to.equal(400);
      const replay = await create(owner, { title: 'Idem-5', type: 'bogus', counterparty: 'C' }, { 'idempotency-key': badKey });
      expect(replay.status).to.equal(400);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');

      const invalid = await create(owner, body, { 'idempotency-key': 'has spaces in it' });
      expect(invalid.status).to.equal(400);
      expect(invalid.body).to.deep.equal({ detail: 'Idempotency-Key: must be 1 to 255 visible ASCII characters' });
    });
  });

  describe('deletion leaves nothing live behind', function () {
    this.timeout(120000);
    const EU_PROCESSING =
      "The Supplier shall host the CRM and process personal data of the Customer's clients located in the European Union on behalf of the Customer.";
    type Stats = { collections: Record<string, { vectors: number }> };
    const indexed = async (u: TestUser) =>
      (await api<Stats>('GET', '/chat/stats', { token: u.token })).body.collections.contracts_kb!.vectors;

    /** A contract with a pending signature request, as a signer would have it. */
    async function withSignatureRequest(u: TestUser) {
      const { body: c } = await create(u, {
        title: `Hosting ${randomUUID().slice(0, 8)}`,
        type: 'service_agreement',
        counterparty: 'Acme GmbH',
        content: EU_PROCESSING,
      });
      const sig = await api<{ id: string; signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
        token: u.token,
        body: { contract_id: c.id, signers: [{ name: 'Sam Signer', email: 'sam@example.test' }] },
      });
      expect(sig.status).to.equal(201);
      const link = `/signatures${new URL(sig.body.signers[0]!.signing_url).pathname}`;
      expect((await api('GET', link)).status).to.equal(200);
      return { contractId: c.id, signatureId: sig.body.id, link };
    }

    async function expectClosedRequest(u: TestUser, signatureId: string, link: string) {
      const request = await api<{ status: string }>('GET', `/signatures/${signatureId}`, { token: u.token });
      expect(request.body.status).to.equal('cancelled');
      const signing = await api('POST', link, { body: { signature_text: 'Sam Signer' } });
      expect(signing.status).to.equal(410);
      expect(signing.body).to.deep.equal({ detail: 'This signature request was cancelled' });
    }

    it('cancels pending signature requests, resolves open compliance tasks, forgets integration links and removes the chunks', async () => {
      const org = await signUp();
      const { contractId, signatureId, link } = await withSignatureRequest(org);
      // Open compliance tasks from a real scan.
      const scan = await api<{ scan_id: string }>('POST', '/compliance/scan', {
        token: org.token,
        body: { jurisdictions: ['EU'], contract_ids: [contractId] },
      });
      expect(scan.status).to.equal(202);
      await waitFor(
        async () =>
          (await api<{ status: string }>('GET', `/compliance/scans/${scan.body.scan_id}`, { token: org.token })).body.status ===
          'completed',
        60000,
        'the scan',
      );
      type Tasks = { tasks: Array<{ status: string; resolved_at: string | null }>; total: number };
      const open = await api<Tasks>('GET', `/compliance/tasks?contract_id=${contractId}`, { token: org.token });
      expect(open.body.total).to.be.greaterThan(0);
      expect(open.body.tasks.every((t) => t.status === 'pending')).to.equal(true);
      // A storage integration's record of where it put the contract.
      await IntegrationLink.create({
        organization_id: new Types.ObjectId(org.organizationId),
        integration_id: new Types.ObjectId(),
        contract_id: contractId,
        key: contractId,
        vendor_id: 'file-1',
        synced_at: new Date(),
      });
      await waitFor(async () => (await indexed(org)) > 0, 30000, 'the contract in the chat index');

      const res = await api('DELETE', `/contracts/${contractId}`, { token: org.token });
      expect(res.status).to.equal(204);

      await expectClosedRequest(org, signatureId, link);
      const closed = await api<Tasks>('GET', `/compliance/tasks?contract_id=${contractId}`, { token: org.token });
      expect(closed.body.total).to.equal(open.body.total);
      for (const t of closed.body.tasks) expect(t.status).to.equal('resolved');
      for (const t of closed.body.tasks) expect(t.resolved_at).to.match(/Z$/);
      expect(await IntegrationLink.countDocuments({ contract_id: contractId })).to.equal(0);

      const [deleted] = await Event.find({ resource_id: contractId, type: 'contract.deleted' }).lean();
      // The chunks leave with the relay's deletion workflow.
      const finishing = testEnv().services.temporal.workflow.getHandle(contractDeletionWorkflowId(deleted!._id.toHexString()));
      await waitFor(async () => !!(await finishing.describe()), 30000, 'the deletion workflow to start');
      await finishing.result();
      expect(await indexed(org)).to.equal(0);
    });

    it('is finished by the relay when the process stopped right after recording contract.deleted', async () => {
      const org = await signUp();
      const { contractId, signatureId, link } = await withSignatureRequest(org);
      // What DELETE writes before anything else; here the process "stops" right after it.
      const contract = await Contract.findById(contractId).orFail();
      await emitContractEvent(
        testEnv().services,
        { kind: 'user', id: org.user.id, userId: org.user.id, organizationId: org.organizationId, role: 'owner', name: 'Test Owner' },
        'contract.deleted',
        contract,
        `Contract "${contract.title}" deleted`,
      );
      // Finished when the relay's deletion workflow is (the contract is gone a moment before its requests are closed).
      const [deleted] = await Event.find({ resource_id: contractId, type: 'contract.deleted' }).lean();
      const finishing = testEnv().services.temporal.workflow.getHandle(contractDeletionWorkflowId(deleted!._id.toHexString()));
      await waitFor(async () => !!(await finishing.describe()), 30000, 'the relay to start the deletion');
      await finishing.result();
      expect((await api('GET', `/contracts/${contractId}`, { token: org.token })).status).to.equal(404);
      await expectClosedRequest(org, signatureId, link);
      expect((await Event.find({ resource_id: contractId }).sort({ occurred_at: 1 }).lean()).map((e) => e.type)).to.deep.equal([
        'contract.created',
        'contract.deleted',
      ]);
    });
  });
});
