import { expect } from 'chai';
import { api } from './support/http';
import { addMember, signUp } from './support/auth';

interface Activity {
  id: string; type: string; actor: { type: string; id: string | null; name: string | null };
  resource_type: string; resource_id: string; summary: string; timestamp: string;
}
interface Feed { activities: Activity[]; total: number; page: number; page_size: number }

describe('GET /analytics/activity', () => {
  it('pages through every event of the organization, newest first, with actor, resource and summary', async () => {
    const owner = await signUp();
    const contract = await api<{ id: string }>('POST', '/contracts', { token: owner.token, body: { title: 'Lease of Unit 4', type: 'lease', counterparty: 'Landlord plc' } });
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
    expect(feed.body.activities.find((a) => a.type === 'vendor.created')).to.include({ resource_type: 'vendor', resource_id: vendor.body.id });

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
