/**
 * A member leaves (the team API or SCIM): member-deprovision-<userId> ends their sessions,
 * revokes or hands on their API keys, and sends team.member_deprovisioned to webhooks and the feed.
 */
import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, fromIp, signUp, type TestUser } from '../../support/auth';
import { startReceiver } from '../../support/receiver';
import { Event } from '../../../models/event';

interface Payload {
  event: string;
  data: Record<string, unknown>;
}

async function listen(owner: TestUser) {
  const receiver = await startReceiver(() => 200);
  const sub = await api('POST', '/webhooks/subscribe', {
    token: owner.token,
    body: { url: `${receiver.url}/hook`, events: ['team.member_deprovisioned'], secret: 'receiver-shared-secret-0123456789' },
  });
  expect(sub.status, sub.text).to.equal(201);
  return receiver;
}

async function keyOf(admin: TestUser) {
  const made = await api<{ id: string; key: string }>('POST', '/settings/api-keys', {
    token: admin.token,
    body: { name: 'ci', role: 'member' },
  });
  expect(made.status, made.text).to.equal(201);
  return made.body;
}

const keys = async (owner: TestUser) =>
  (await api<{ api_keys: Array<{ id: string; created_by: string }> }>('GET', '/settings/api-keys', { token: owner.token })).body.api_keys;

describe('member deprovisioning', () => {
  it('deactivation through the team API ends every session, hands keys to an owner, tells the webhook; reactivation needs a new sign-in', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const receiver = await listen(owner);
    expect((await api('PUT', '/settings/organization', { token: owner.token, body: { leaver_api_keys: 'transfer' } })).status).to.equal(
      200,
    );
    const key = await keyOf(admin);

    const off = await api('POST', `/team/members/${admin.user.id}/deactivate`, { token: owner.token });
    expect(off.status, off.text).to.equal(200);
    expect((await api('GET', '/team/members', { token: admin.token })).status).to.equal(401);

    await receiver.waitFor(1, 30_000);
    const payload = JSON.parse(receiver.received[0]!.body) as Payload;
    expect(payload.event).to.equal('team.member_deprovisioned');
    expect(payload.data).to.deep.include({ id: admin.user.id, email: admin.email, reason: 'deactivated', sessions_ended: 1 });
    expect(payload.data.api_keys).to.deep.equal({ policy: 'transfer', count: 1 });
    const feed = await Event.findOne({ organization_id: owner.organizationId, type: 'team.member_deprovisioned' }).lean();
    expect(feed?.summary).to.match(/left/);

    const refresh = await api('POST', '/auth/refresh', { body: { refresh_token: admin.refreshToken }, headers: fromIp(admin.ip) });
    expect(refresh.status).to.equal(401);
    // The key now stands for the owner, and works.
    expect((await keys(owner)).find((k) => k.id === key.id)?.created_by).to.equal(owner.user.id);
    expect((await api('GET', '/team/members', { token: key.key })).status).to.equal(200);

    expect((await api('POST', `/team/members/${admin.user.id}/reactivate`, { token: owner.token })).status).to.equal(200);
    expect((await api('GET', '/team/members', { token: admin.token })).status).to.equal(401);
    const login = await api<{ access_token: string }>('POST', '/auth/login', {
      body: { email: admin.email, password: admin.password },
      headers: fromIp(admin.ip),
    });
    expect(login.status, login.text).to.equal(200);
    expect((await api('GET', '/team/members', { token: login.body.access_token })).status).to.equal(200);
  });

  it('a SCIM delete revokes the keys the member made, by default, and the webhook hears reason removed', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const receiver = await listen(owner);
    const key = await keyOf(admin);
    const scim = await api<{ token: string }>('POST', '/settings/scim/token', { token: owner.token });
    const del = await api('DELETE', `/scim/v2/Users/${admin.user.id}`, { token: scim.body.token });
    expect(del.status, del.text).to.equal(204);
    expect((await api('GET', '/team/members', { token: key.key })).status).to.equal(401);
    await receiver.waitFor(1, 30_000);
    const payload = JSON.parse(receiver.received[0]!.body) as Payload;
    expect(payload.data).to.deep.include({ id: admin.user.id, reason: 'removed' });
    expect(payload.data.api_keys).to.deep.equal({ policy: 'revoke', count: 1 });
    expect((await keys(owner)).map((k) => k.id)).to.not.include(key.id);
  });
});
