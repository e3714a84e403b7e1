import { expect } from 'chai';
import { Types } from 'mongoose';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { ComplianceTask } from '../../../models/compliance-task';
import { Signature } from '../../../models/signature';
import { Vendor } from '../../../models/vendor';
import { monthRange } from '../../../services/analytics/spend';

interface Activity {
  id: string;
  type: string;
  actor: { type: string; id: string | null; name: string | null };
  resource_type: string;
  resource_id: string;
  summary: string;
  timestamp: string;
}
interface Feed {
  activities: Activity[];
  total: number;
  page: number;
  page_size: number;
}

describe('GET /analytics/activity', function () {
  // Registration hashes passwords; on a shared, busy machine a few sign-ups take a minute.
  this.timeout(180000);

  it('pages through every event of the organization, newest first, with actor, resource and summary', async () => {
    const owner = await signUp();
    const contract = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Lease of Unit 4', type: 'lease', counterparty: 'Landlord plc' },
    });
    await api('PUT', `/contracts/${contract.body.id}`, { token: owner.token, body: { status: 'active' } });
    const vendor = await api<{ id: string }>('POST', '/vendors', { token: owner.token, body: { name: 'Paper Co' } });
    const viewer = await addMember(owner, 'viewer'); // registering by invitation emits team.member_joined

    const feed = await api<Feed>('GET', '/analytics/activity', { token: viewer.token });
    expect(feed.status).to.equal(200);
    expect(feed.body).to.include({ page: 1, page_size: 20 });
    const types = feed.body.activities.map((a) => a.type);
    expect(types.slice(0, 4)).to.deep.equal(['team.member_joined', 'vendor.created', 'contract.updated', 'contract.created']);
    expect(feed.body.total).to.equal(feed.body.activities.length);
    const created = feed.body.activities.find((a) => a.type === 'contract.created')!;
    expect(created).to.include({ resource_type: 'contract', resource_id: contract.body.id });
    expect(created.actor).to.deep.equal({ type: 'user', id: owner.user.id, name: owner.user.full_name });
    expect(created.summary).to.contain('Lease of Unit 4');
    expect(created.timestamp).to.match(/Z$/);
    expect(feed.body.activities.find((a) => a.type === 'vendor.created')).to.include({
      resource_type: 'vendor',
      resource_id: vendor.body.id,
    });

    const byType = await api<Feed>('GET', '/analytics/activity?type=contract.created', { token: owner.token });
    expect(byType.body.activities.map((a) => a.type)).to.deep.equal(['contract.created']);
    const byResource = await api<Feed>('GET', '/analytics/activity?type=contract', { token: owner.token });
    expect(byResource.body.activities.map((a) => a.type)).to.deep.equal(['contract.updated', 'contract.created']);

    const page2 = await api<Feed>('GET', '/analytics/activity?page=2&page_size=1', { token: owner.token });
    expect(page2.body).to.include({ page: 2, page_size: 1, total: feed.body.total });
    expect(page2.body.activities[0]!.id).to.equal(feed.body.activities[1]!.id);
    expect((await api<Feed>('GET', '/analytics/activity?page_size=500', { token: owner.token })).body.page_size).to.equal(100);

    // Another organization sees none of it.
    const stranger = await signUp();
    const theirs = await api<Feed>('GET', '/analytics/activity', { token: stranger.token });
    expect(theirs.body.activities.map((a) => a.resource_id)).not.to.include(contract.body.id);
  });

  it('refuses bad paging and unknown types with 400, and anonymous callers with 401', async () => {
    const owner = await signUp();
    for (const q of ['page=0', 'page_size=0', 'page=x', 'type=contract.exploded', 'type=$where']) {
      const res = await api('GET', `/analytics/activity?${q}`, { token: owner.token });
      expect(res.status, q).to.equal(400);
      expect(res.body.detail, q).to.be.a('string');
    }
    expect((await api('GET', '/analytics/activity')).status).to.equal(401);
  });
});

interface Dashboard {
  contracts: { total: number; active: number; draft: number; expired: number };
  signatures: { total_sent: number; completed: number; pending: number; completion_rate: number };
  compliance: { tasks_pending: number; tasks_resolved: number };
  vendors: { total: number; high_risk: number };
}
interface Spend {
  period: string;
  data: Array<{ month: string; spend: number; contracts: number }>;
  total_spend: number;
  average_per_contract: number;
}
interface Forecast {
  forecast: Array<{ month: string; predicted_spend: number; confidence: number }>;
  trend: string;
  history: Array<{ month: string; spend: number }>;
}

/** The date `monthsAgo` months before this month, on its `day` (YYYY-MM-DD). */
const dayInMonth = (monthsAgo: number, day = 10) => `${monthRange(new Date(), 1, -monthsAgo)[0]}-${String(day).padStart(2, '0')}`;

async function contract(u: TestUser, body: Record<string, unknown>, status?: string): Promise<string> {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: 'Services', type: 'service_agreement', counterparty: 'Acme', ...body },
  });
  expect(res.status, res.text).to.equal(201);
  if (status) expect((await api('PUT', `/contracts/${res.body.id}`, { token: u.token, body: { status } })).status).to.equal(200);
  return res.body.id;
}

describe('GET /analytics/dashboard', function () {
  // About twenty requests on a shared, busy machine.
  this.timeout(180000);

  it("counts the organization's contracts, signatures, compliance tasks and vendors", async () => {
    const owner = await signUp();
    const ids = [
      await contract(owner, {}),
      await contract(owner, {}),
      await contract(owner, {}, 'active'),
      await contract(owner, {}, 'active'),
      await contract(owner, {}, 'active'),
      await contract(owner, {}, 'expired'),
      await contract(owner, {}, 'completed'),
    ];
    const levels = ['low', 'medium', 'high', 'critical', 'critical', null];
    for (const [i, level] of levels.entries()) {
      const v = await api<{ id: string }>('POST', '/vendors', { token: owner.token, body: { name: `Vendor ${i}` } });
      expect(v.status).to.equal(201);
      // The level comes from an AI assessment; set directly here so the counts are known.
      if (level) await Vendor.updateOne({ _id: v.body.id }, { risk_level: level, risk_score: 50 });
    }
    const org = new Types.ObjectId(owner.organizationId);
    const sigStatuses = ['completed', 'completed', 'completed', 'pending', 'declined', 'expired', 'pending', 'cancelled'];
    await Signature.insertMany(
      sigStatuses.map((status) => ({
        organization_id: org,
        contract_id: new Types.ObjectId(ids[2]),
        contract_title: 'Services',
        status,
        signers: [{ name: 'S', email: 's@example.test', order: 1, token_hash: 'x'.repeat(64) }],
        document: 'text',
        document_hash: 'h'.repeat(64),
        expires_at: new Date(Date.now() + 86400000),
      })),
    );
    const taskStatuses = ['pending', 'pending', 'in_progress', 'resolved'];
    await ComplianceTask.insertMany(
      taskStatuses.map((status, i) => ({
        organization_id: org,
        title: `Task ${i}`,
        description: 'd',
        priority: 'high',
        status,
        due_date: new Date(),
        contract_id: new Types.ObjectId(ids[0]),
        contract_title: 'Services',
        regulation_type: 'GDPR',
        jurisdiction: 'EU',
        rule_id: `rule-${i}`,
      })),
    );

    // Another organization's records count for it alone.
    const stranger = await signUp();
    await contract(stranger, {}, 'active');

    const viewer = await addMember(owner, 'viewer');
    const res = await api<Dashboard>('GET', '/analytics/dashboard', { token: viewer.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      contracts: { total: 7, active: 3, draft: 2, expired: 1 },
      signatures: { total_sent: 8, completed: 3, pending: 2, completion_rate: 3 / 8 },
      compliance: { tasks_pending: 3, tasks_resolved: 1 },
      vendors: { total: 6, high_risk: 3 },
    });

    const theirs = await api<Dashboard>('GET', '/analytics/dashboard', { token: stranger.token });
    expect(theirs.body).to.deep.equal({
      contracts: { total: 1, active: 1, draft: 0, expired: 0 },
      signatures: { total_sent: 0, completed: 0, pending: 0, completion_rate: 0 },
      compliance: { tasks_pending: 0, tasks_resolved: 0 },
      vendors: { total: 0, high_risk: 0 },
    });
    expect((await api('GET', '/analytics/dashboard')).status).to.equal(401);
  });
});

describe('GET /analytics/spend', () => {
  it('sums contract values by month of start date (else creation), with empty months as zeros', async () => {
    const owner = await signUp();
    await contract(owner, { value: 1000, start_date: dayInMonth(1, 3) });
    await contract(owner, { value: 500, start_date: dayInMonth(1, 28) });
    await contract(owner, { value: 2500.5, start_date: dayInMonth(3) });
    await contract(owner, { value: 300 }); // no start date: counts in the month it was created
    await contract(owner, { value: 9999, start_date: dayInMonth(8) }); // before the window
    await contract(owner, { start_date: dayInMonth(1) }); // no value: no spend
    const stranger = await signUp();
    await contract(stranger, { value: 777, start_date: dayInMonth(1) });

    const res = await api<Spend>('GET', '/analytics/spend?period=monthly&months=6', { token: owner.token });
    expect(res.status).to.equal(200);
    const months = monthRange(new Date(), 6);
    expect(res.body).to.deep.equal({
      period: 'monthly',
      data: [
        { month: months[0], spend: 0, contracts: 0 },
        { month: months[1], spend: 0, contracts: 0 },
        { month: months[2], spend: 2500.5, contracts: 1 },
        { month: months[3], spend: 0, contracts: 0 },
        { month: months[4], spend: 1500, contracts: 2 },
        { month: months[5], spend: 300, contracts: 1 },
      ],
      total_spend: 4300.5,
      average_per_contract: 1075.13,
    });

    const def = await api<Spend>('GET', '/analytics/spend', { token: owner.token });
    expect(def.body.period).to.equal('monthly');
    expect(def.body.data).to.have.length(12);
    expect(def.body.total_spend).to.equal(4300.5 + 9999);
    const shorter = await api<Spend>('GET', '/analytics/spend?months=1', { token: owner.token });
    expect(shorter.body).to.deep.include({ total_spend: 300, average_per_contract: 300 });
    expect(shorter.body.data).to.deep.equal([{ month: monthRange(new Date(), 1)[0], spend: 300, contracts: 1 }]);
  });

  it('refuses a bad period or month count with 400', async () => {
    const owner = await signUp();
    for (const q of ['months=0', 'months=61', 'months=2.5', 'months=x', 'period=weekly']) {
      const res = await api<{ detail: string }>('GET', `/analytics/spend?${q}`, { token: owner.token });
      expect(res.status, q).to.equal(400);
      expect(res.body.detail, q).to.match(/^(months|period): /);
    }
  });
});

describe('GET /analytics/forecast', function () {
  // Several organizations seeded with six contracts each.
  this.timeout(180000);

  const seed = async (u: TestUser, values: number[]) => {
    // values[0] is the oldest complete month; the last one is last month.
    for (const [i, value] of values.entries()) await contract(u, { value, start_date: dayInMonth(values.length - i) });
  };

  it('continues a linear series with trend increasing, from next month on, confidence falling', async () => {
    const owner = await signUp();
    await seed(owner, [1000, 2000, 3000, 4000, 5000, 6000]);
    const res = await api<Forecast>('GET', '/analytics/forecast?months_ahead=3', { token: owner.token });
    expect(res.status).to.equal(200);
    expect(res.body.trend).to.equal('increasing');
    expect(res.body.history.map((h) => h.spend)).to.deep.equal([1000, 2000, 3000, 4000, 5000, 6000]);
    expect(res.body.forecast.map((p) => p.month)).to.deep.equal(monthRange(new Date(), 3, 3));
    // The current month is x = 6, so next month continues the line at 8000.
    expect(res.body.forecast.map((p) => p.predicted_spend)).to.deep.equal([8000, 9000, 10000]);
    const c = res.body.forecast.map((p) => p.confidence);
    expect(c[0]).to.be.within(0.9, 1);
    expect(c[1]).to.be.below(c[0]!);
    expect(c[2]).to.be.below(c[1]!);
  });

  it('calls a flat series stable and gives a noisy one less confidence', async () => {
    const flat = await signUp();
    await seed(flat, [2000, 2000, 2000, 2000, 2000, 2000]);
    const f = await api<Forecast>('GET', '/analytics/forecast', { token: flat.token });
    expect(f.body.trend).to.equal('stable');
    expect(f.body.forecast).to.have.length(6);
    for (const p of f.body.forecast) expect(p.predicted_spend).to.equal(2000);

    const noisy = await signUp();
    await seed(noisy, [500, 3500, 800, 3000, 1200, 3300]);
    const n = await api<Forecast>('GET', '/analytics/forecast', { token: noisy.token });
    n.body.forecast.forEach((p, i) => {
      expect(p.confidence).to.be.within(0, 1);
      expect(p.confidence).to.be.below(f.body.forecast[i]!.confidence);
    });

    const empty = await signUp();
    const e = await api<Forecast>('GET', '/analytics/forecast?months_ahead=1', { token: empty.token });
    expect(e.body).to.deep.include({
      trend: 'stable',
      forecast: [{ month: monthRange(new Date(), 1, 1)[0], predicted_spend: 0, confidence: 0 }],
    });
  });

  it('refuses a bad months_ahead with 400', async () => {
    const owner = await signUp();
    for (const q of ['months_ahead=0', 'months_ahead=25', 'months_ahead=-1', 'months_ahead=x']) {
      const res = await api<{ detail: string }>('GET', `/analytics/forecast?${q}`, { token: owner.token });
      expect(res.status, q).to.equal(400);
      expect(res.body.detail, q).to.match(/^months_ahead: /);
    }
  });
});
