import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { Event } from '../../../models/event';

interface VendorBody {
  id: string;
  name: string;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  category: string | null;
  website: string | null;
  notes: string | null;
  status: string;
  risk_level: string | null;
  risk_score: number | null;
  organization_id: string;
  created_at: string;
  updated_at: string;
  detail?: string;
}
interface VendorList {
  vendors: Array<Partial<VendorBody>>;
  total: number;
  page: number;
  page_size: number;
  detail?: string;
}
interface Assessment {
  risk_score: number;
  risk_level: string;
  assessment: { financial_stability: string; data_handling: string; contract_coverage: string; recommendations: string[] };
}

const create = (u: TestUser, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api<VendorBody>('POST', '/vendors', { token: u.token, body, headers });

describe('vendors', () => {
  describe('create, get, update, delete', () => {
    let owner: TestUser;
    before(async () => {
      owner = await signUp();
    });

    it('creates with status active and no score until assessed, and records vendor.created', async () => {
      const res = await create(owner, {
        name: 'Acme Cloud',
        contact_name: 'Ann',
        contact_email: 'ann@acme.example',
        contact_phone: '+1 (555) 010-2000',
        category: 'cloud hosting',
        website: 'https://acme.example',
        notes: 'Preferred',
        risk_score: 5,
        organization_id: '0123456789abcdef01234567',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        name: 'Acme Cloud',
        contact_email: 'ann@acme.example',
        status: 'active',
        risk_score: null,
        risk_level: null,
        organization_id: owner.organizationId,
      });
      expect(res.body.created_at).to.match(/Z$/);
      const [event] = await Event.find({ resource_id: res.body.id }).lean();
      expect(event!.type).to.equal('vendor.created');
      expect(event!.data).to.include({ id: res.body.id, name: 'Acme Cloud', status: 'active' });
    });

    const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
      ['a missing name', { category: 'x' }, /^name: /],
      ['a bad email', { name: 'V', contact_email: 'not-an-email' }, /^contact_email: must be an email address$/],
      ['a non-http URL', { name: 'V', website: 'ftp://files.example' }, /^website: must be an http or https URL$/],
      ['a text that is not a URL', { name: 'V', website: 'acme dot com' }, /^website: /],
      ['a phone with letters', { name: 'V', contact_phone: 'call me maybe' }, /^contact_phone: /],
      ['an unknown status', { name: 'V', status: 'gone' }, /^status: must be one of active, inactive, under_review, blocked$/],
    ];
    for (const [what, body, detail] of invalid) {
      it(`refuses ${what} with 400 naming the field`, async () => {
        const res = await create(owner, body);
        expect(res.status).to.equal(400);
        expect(res.body.detail).to.match(detail);
      });
    }

    it('gets, partially updates and deletes (204), then answers 404', async () => {
      const { body: v } = await create(owner, { name: 'Paper Co', category: 'office supplies' });
      expect((await api<VendorBody>('GET', `/vendors/${v.id}`, { token: owner.token })).body).to.deep.equal(v);
      const upd = await api<VendorBody>('PUT', `/vendors/${v.id}`, {
        token: owner.token,
        body: { status: 'under_review', risk_level: 'low' },
      });
      expect(upd.status).to.equal(200);
      expect(upd.body).to.include({ status: 'under_review', name: 'Paper Co', category: 'office supplies', risk_level: null });
      expect((await api('PUT', `/vendors/${v.id}`, { token: owner.token, body: { contact_email: 'x' } })).status).to.equal(400);
      const del = await api('DELETE', `/vendors/${v.id}`, { token: owner.token });
      expect(del.status).to.equal(204);
      expect(del.text).to.equal('');
      expect((await api('GET', `/vendors/${v.id}`, { token: owner.token })).body).to.deep.equal({ detail: 'Vendor not found' });
    });
  });

  describe('list, assessment and NDA', () => {
    let owner: TestUser;
    let risky: VendorBody, sound: VendorBody;
    before(async () => {
      owner = await signUp();
      risky = (await create(owner, { name: 'Shady Data', category: 'data analytics', notes: 'Data breach last year; invoices late' })).body;
      sound = (
        await create(owner, { name: 'Solid Paper', category: 'office supplies', website: 'https://paper.example', status: 'inactive' })
      ).body;
    });

    it('assesses a vendor in the spec shape and stores the score and the level derived from it', async () => {
      const res = await api<Assessment>('POST', `/vendors/${risky.id}/risk-assessment`, { token: owner.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.have.keys('risk_score', 'risk_level', 'assessment');
      expect(res.body.assessment).to.have.keys('financial_stability', 'data_handling', 'contract_coverage', 'recommendations');
      const level = (s: number) => (s < 25 ? 'low' : s < 50 ? 'medium' : s < 75 ? 'high' : 'critical');
      expect(res.body.risk_level).to.equal(level(res.body.risk_score));
      expect(res.body.risk_level).to.be.oneOf(['high', 'critical']);
      const stored = await api<VendorBody>('GET', `/vendors/${risky.id}`, { token: owner.token });
      expect(stored.body).to.include({ risk_score: res.body.risk_score, risk_level: res.body.risk_level });
      const event = await Event.findOne({ resource_id: risky.id, type: 'vendor.risk_assessed' }).lean();
      expect(event!.data).to.include({ id: risky.id, risk_score: res.body.risk_score, risk_level: res.body.risk_level });
    });

    it('generates an NDA linked to the vendor (201) that improves its contract coverage', async () => {
      const res = await api<{
        id: string;
        type: string;
        status: string;
        vendor_id: string;
        counterparty: string;
        party_name: string;
        content: string;
      }>('POST', `/vendors/${sound.id}/generate-nda`, { token: owner.token, body: { party_name: 'Acme Corp', duration_years: 3 } });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        type: 'nda',
        status: 'draft',
        vendor_id: sound.id,
        counterparty: 'Solid Paper',
        party_name: 'Acme Corp',
      });
      expect(res.body.content).to.include('Acme Corp').and.include('Solid Paper').and.include('3 years');
      expect((await api('GET', `/contracts/${res.body.id}`, { token: owner.token })).status).to.equal(200);
      const created = await Event.findOne({ resource_id: res.body.id, type: 'contract.created' }).lean();
      expect(created!.data).to.include({ id: res.body.id, type: 'nda', vendor_id: sound.id });

      const assessed = await api<Assessment>('POST', `/vendors/${sound.id}/risk-assessment`, { token: owner.token });
      expect(assessed.body.assessment.contract_coverage).to.match(/NDA in place/);
      expect(assessed.body.risk_level).to.equal('low');
    });

    it('validates the NDA request', async () => {
      for (const body of [
        { duration_years: 2 },
        { party_name: 'A', duration_years: 1.5 },
        { party_name: 'A', duration_years: 0 },
        { party_name: 'A', duration_years: '2' },
      ]) {
        const res = await api('POST', `/vendors/${sound.id}/generate-nda`, { token: owner.token, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.detail).to.match(/^(party_name|duration_years): /);
      }
    });

    it('replays a repeated NDA request with the same Idempotency-Key', async () => {
      const key = randomUUID();
      const send = () =>
        api<{ id: string }>('POST', `/vendors/${sound.id}/generate-nda`, {
          token: owner.token,
          body: { party_name: 'Acme' },
          headers: { 'idempotency-key': key },
        });
      const [a, b] = [await send(), await send()];
      expect(b.status).to.equal(201);
      expect(b.body.id).to.equal(a.body.id);
      expect(b.headers.get('idempotent-replayed')).to.equal('true');
    });

    it('lists with status and risk_level filters, in the spec item shape', async () => {
      const all = await api<VendorList>('GET', '/vendors', { token: owner.token });
      expect(all.body).to.include({ total: 2, page: 1, page_size: 20 });
      expect(all.body.vendors[0]).to.have.keys(
        'id',
        'name',
        'contact_email',
        'status',
        'risk_level',
        'risk_score',
        'category',
        'created_at',
      );
      expect(
        (await api<VendorList>('GET', '/vendors?status=inactive', { token: owner.token })).body.vendors.map((v) => v.name),
      ).to.deep.equal(['Solid Paper']);
      expect(
        (await api<VendorList>('GET', '/vendors?risk_level=low', { token: owner.token })).body.vendors.map((v) => v.name),
      ).to.deep.equal(['Solid Paper']);
      expect((await api<VendorList>('GET', '/vendors?search=SHADY', { token: owner.token })).body.total).to.equal(1);
      const bad = await api<VendorList>('GET', '/vendors?risk_level=extreme', { token: owner.token });
      expect(bad.status).to.equal(400);
      expect(bad.body.detail).to.equal('risk_level: must be one of low, medium, high, critical');
    });

    it('unlinks contracts when their vendor is deleted', async () => {
      const { body: v } = await create(owner, { name: 'Short Lived' });
      const nda = await api<{ id: string }>('POST', `/vendors/${v.id}/generate-nda`, { token: owner.token, body: { party_name: 'Acme' } });
      expect((await api('DELETE', `/vendors/${v.id}`, { token: owner.token })).status).to.equal(204);
      expect((await api<{ vendor_id: string | null }>('GET', `/contracts/${nda.body.id}`, { token: owner.token })).body.vendor_id).to.equal(
        null,
      );
    });
  });

  describe('roles and organizations', () => {
    let owner: TestUser, member: TestUser, viewer: TestUser, stranger: TestUser;
    let id: string;
    before(async () => {
      owner = await signUp();
      [member, viewer, stranger] = await Promise.all([addMember(owner, 'member'), addMember(owner, 'viewer'), signUp()]);
      id = (await create(owner, { name: 'Shared Vendor' })).body.id;
    });

    it('lets a viewer read only', async () => {
      expect((await api('GET', '/vendors', { token: viewer.token })).status).to.equal(200);
      expect((await api('GET', `/vendors/${id}`, { token: viewer.token })).status).to.equal(200);
      expect((await create(viewer, { name: 'V' })).status).to.equal(403);
      expect((await api('PUT', `/vendors/${id}`, { token: viewer.token, body: { notes: 'x' } })).status).to.equal(403);
      expect((await api('POST', `/vendors/${id}/risk-assessment`, { token: viewer.token })).status).to.equal(403);
      expect((await api('POST', `/vendors/${id}/generate-nda`, { token: viewer.token, body: { party_name: 'A' } })).status).to.equal(403);
      expect((await api('DELETE', `/vendors/${id}`, { token: viewer.token })).status).to.equal(403);
    });

    it('lets a member create, edit and assess but not delete', async () => {
      const mine = await create(member, { name: 'Member Vendor' });
      expect(mine.status).to.equal(201);
      expect((await api('PUT', `/vendors/${mine.body.id}`, { token: member.token, body: { notes: 'ok' } })).status).to.equal(200);
      expect((await api('POST', `/vendors/${mine.body.id}/risk-assessment`, { token: member.token })).status).to.equal(200);
      expect((await api('DELETE', `/vendors/${mine.body.id}`, { token: member.token })).status).to.equal(403);
      expect((await api('DELETE', `/vendors/${mine.body.id}`, { token: owner.token })).status).to.equal(204);
    });

    it('answers another organization with 404', async () => {
      expect((await api('GET', `/vendors/${id}`, { token: stranger.token })).status).to.equal(404);
      expect((await api('PUT', `/vendors/${id}`, { token: stranger.token, body: { notes: 'x' } })).status).to.equal(404);
      expect((await api('POST', `/vendors/${id}/risk-assessment`, { token: stranger.token })).status).to.equal(404);
      expect((await api('POST', `/vendors/${id}/generate-nda`, { token: stranger.token, body: { party_name: 'A' } })).status).to.equal(404);
      expect((await api('DELETE', `/vendors/${id}`, { token: stranger.token })).status).to.equal(404);
      expect((await api<VendorList>('GET', '/vendors', { token: stranger.token })).body.total).to.equal(0);
    });
  });
});
