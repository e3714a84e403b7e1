import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { startSlackFake } from '../../support/vendors/slack';
import { startTeamsFake } from '../../support/vendors/teams';
import { Integration } from '../../../models/integration';
import { notificationFor } from '../../../services/integrations/notifications';

interface IntegrationView {
  type: string;
  status: string;
  config: Record<string, unknown>;
  connected_at: string;
  last_sync_at: string | null;
  last_error: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createContract(owner: TestUser, title: string) {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: owner.token,
    body: { title, type: 'nda', counterparty: 'Acme Corp' },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

async function list(user: TestUser) {
  const res = await api<{ integrations: IntegrationView[] }>('GET', '/integrations', { token: user.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.integrations;
}

describe('integrations (chat)', function () {
  this.timeout(180000);
  let owner: TestUser;
  let slack: Awaited<ReturnType<typeof startSlackFake>>;
  let teams: Awaited<ReturnType<typeof startTeamsFake>>;

  before(async () => {
    owner = await signUp();
    [slack, teams] = await Promise.all([startSlackFake(), startTeamsFake()]);
  });
  after(async () => {
    await Promise.all([slack.close(), teams.close()]);
  });

  const messagesNaming = (title: string) => slack.messages.filter((m) => JSON.stringify(m).includes(title));

  it('connects slack: 201 with the webhook URL redacted, sealed at rest', async () => {
    const res = await api<IntegrationView>('POST', '/integrations/slack/connect', {
      token: owner.token,
      body: { webhook_url: slack.webhookUrl, channel: '#contracts', notify_on: ['contract_created'] },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.deep.include({ type: 'slack', status: 'connected', last_error: null, last_sync_at: null });
    expect(res.body.config).to.deep.equal({ channel: '#contracts', notify_on: ['contract_created'], webhook_url: '[redacted]' });

    const listed = await list(owner);
    expect(listed.map((i) => i.type)).to.deep.equal(['slack']);
    expect(JSON.stringify(listed)).not.to.include(slack.webhookUrl);
    const stored = await Integration.findOne({ organization_id: owner.organizationId, type: 'slack' }).lean();
    expect(stored?.credentials_encrypted).to.be.a('string').and.not.include('services/T0FAKE01');
  });

  it('posts exactly one Block Kit message naming a created contract', async () => {
    const title = `MSA ${randomBytes(4).toString('hex')}`;
    await createContract(owner, title);
    await slack.waitForMessages(1);
    await sleep(1500); // a second (duplicate) delivery would arrive within this window
    const named = messagesNaming(title);
    expect(named).to.have.length(1);
    const [message] = named;
    expect(message!.text).to.include(title);
    expect(message!.blocks[0]).to.deep.include({ type: 'header' });
    expect(JSON.stringify(message!.blocks[1])).to.include('Acme Corp');
  });

  it("waits for Slack's Retry-After on a 429, then delivers once", async () => {
    const title = `Lease ${randomBytes(4).toString('hex')}`;
    slack.rateLimitOnce(2);
    const before = slack.received.length;
    await createContract(owner, title);
    const deadline = Date.now() + 20000;
    while (messagesNaming(title).length === 0 && Date.now() < deadline) await sleep(50);
    expect(messagesNaming(title)).to.have.length(1);
    const [throttled, delivered] = slack.received.slice(before);
    expect(throttled!.body).to.include(title);
    expect(delivered!.at - throttled!.at).to.be.at.least(2000);
  });

  it('tests teams with an Adaptive Card, and records a failing test on the integration', async () => {
    const broken = `${teams.url}/webhookb2/unknown`;
    let res = await api<IntegrationView>('POST', '/integrations/teams/connect', {
      token: owner.token,
      body: { webhook_url: broken, channel: 'General', notify_on: ['signature_completed', 'renewal_due'] },
    });
    expect(res.status, res.text).to.equal(201);
    const failed = await api<{ ok: boolean; detail: string }>('POST', '/integrations/teams/test', { token: owner.token });
    expect(failed.status).to.equal(200);
    expect(failed.body.ok).to.equal(false);
    expect(failed.body.detail).to.include('404');
    let teamsView = (await list(owner)).find((i) => i.type === 'teams');
    expect(teamsView).to.deep.include({ status: 'error' });
    expect(teamsView!.last_error).to.include('404');

    // Connecting again replaces the settings and clears the error.
    res = await api<IntegrationView>('POST', '/integrations/teams/connect', {
      token: owner.token,
      body: { webhook_url: teams.webhookUrl, channel: 'General', notify_on: ['signature_completed'] },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.deep.include({ status: 'connected', last_error: null });
    const ok = await api<{ ok: boolean; detail: string }>('POST', '/integrations/teams/test', { token: owner.token });
    expect(ok.body, ok.text).to.deep.include({ ok: true });
    const [card] = await teams.waitForMessages(1);
    expect(card!.attachments[0]!.contentType).to.equal('application/vnd.microsoft.card.adaptive');
    expect(card!.attachments[0]!.content.type).to.equal('AdaptiveCard');
    expect(JSON.stringify(card)).to.include('General');
    teamsView = (await list(owner)).find((i) => i.type === 'teams');
    expect(teamsView).to.deep.include({ status: 'connected', last_error: null });

    // A test is one call: throttling is reported, not retried.
    teams.rateLimitOnce(30);
    const throttled = await api<{ ok: boolean; detail: string }>('POST', '/integrations/teams/test', { token: owner.token });
    expect(throttled.body.ok).to.equal(false);
    expect(throttled.body.detail).to.include('429');
  });

  it('refuses bad bodies and unknown types', async () => {
    const connect = (type: string, body: unknown) => api('POST', `/integrations/${type}/connect`, { token: owner.token, body });
    const metadata = await connect('slack', { webhook_url: 'http://169.254.169.254/latest/meta-data', channel: '#x', notify_on: [] });
    expect(metadata.status).to.equal(400);
    expect(metadata.body.detail).to.match(/^webhook_url: .*link-local/);
    const notify = await connect('slack', { webhook_url: slack.webhookUrl, channel: '#x', notify_on: ['contract_deleted'] });
    expect(notify.status).to.equal(400);
    expect(notify.body.detail).to.match(/^notify_on\.0: must be one of/);
    const channel = await connect('teams', { webhook_url: teams.webhookUrl, notify_on: [] });
    expect(channel.status).to.equal(400);
    expect(channel.body.detail).to.match(/^channel: /);
    const unknown = await connect('discord', { webhook_url: slack.webhookUrl, channel: '#x' });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.detail).to.include('slack');
  });

  it('lets only owners and admins connect, test or disconnect; members may sync; everyone reads', async () => {
    const member = await addMember(owner, 'member');
    const viewer = await addMember(owner, 'viewer');
    const body = { webhook_url: slack.webhookUrl, channel: '#x', notify_on: [] };
    expect((await api('POST', '/integrations/slack/connect', { token: member.token, body })).status).to.equal(403);
    expect((await api('POST', '/integrations/slack/test', { token: viewer.token })).status).to.equal(403);
    expect((await api('DELETE', '/integrations/slack/disconnect', { token: member.token })).status).to.equal(403);
    expect((await api('POST', '/integrations/slack/sync', { token: viewer.token })).status).to.equal(403);
    // Past the role check: refused only because a chat integration has nothing to sync.
    expect((await api('POST', '/integrations/slack/sync', { token: member.token })).status).to.equal(400);
    expect((await list(viewer)).map((i) => i.type).sort()).to.deep.equal(['slack', 'teams']);
    const admin = await addMember(owner, 'admin');
    const test = await api<{ ok: boolean }>('POST', '/integrations/slack/test', { token: admin.token });
    expect(test.body).to.deep.include({ ok: true });
  });

  it('keeps integrations inside their organization', async () => {
    const stranger = await signUp();
    expect(await list(stranger)).to.deep.equal([]);
    expect((await api('POST', '/integrations/slack/test', { token: stranger.token })).status).to.equal(404);
    expect((await api('DELETE', '/integrations/slack/disconnect', { token: stranger.token })).status).to.equal(404);
    expect((await list(owner)).find((i) => i.type === 'slack')).to.deep.include({ status: 'connected' });
  });

  it('does not retry a notification Slack refuses with a 4xx, and records the error', async () => {
    const revoked = `${slack.url}/services/T0FAKE01/B0FAKE01/revoked`; // not a webhook the fake knows: 404 no_service
    const res = await api('POST', '/integrations/slack/connect', {
      token: owner.token,
      body: { webhook_url: revoked, channel: '#contracts', notify_on: ['contract_created'] },
    });
    expect(res.status, res.text).to.equal(201);
    const title = `Revoked ${randomBytes(4).toString('hex')}`;
    await createContract(owner, title);
    const deadline = Date.now() + 30000;
    let view: IntegrationView | undefined;
    while (Date.now() < deadline) {
      view = (await list(owner)).find((i) => i.type === 'slack');
      if (view?.status === 'error') break;
      await sleep(200);
    }
    expect(view).to.deep.include({ status: 'error' });
    expect(view!.last_error).to.include('no_service');
    await sleep(3000); // the workflow's first retry would come after 2 s
    expect(slack.received.filter((r) => r.path.endsWith('/revoked') && r.body.includes(title))).to.have.length(1);
  });

  it('disconnects: 204, credentials erased, no more notifications', async () => {
    const res = await api('DELETE', '/integrations/slack/disconnect', { token: owner.token });
    expect(res.status).to.equal(204);
    const stored = await Integration.findOne({ organization_id: owner.organizationId, type: 'slack' }).lean();
    expect(stored?.credentials_encrypted).to.equal(null);
    expect((await list(owner)).find((i) => i.type === 'slack')).to.deep.include({ status: 'disconnected' });
    expect((await api('POST', '/integrations/slack/test', { token: owner.token })).status).to.equal(404);
    expect((await api('DELETE', '/integrations/slack/disconnect', { token: owner.token })).status).to.equal(404);

    const title = `After disconnect ${randomBytes(4).toString('hex')}`;
    await createContract(owner, title);
    await sleep(2500);
    expect(messagesNaming(title)).to.have.length(0);
  });

  it('maps events to messages (pure)', () => {
    const signed = notificationFor({
      type: 'signature.completed',
      data: { signature_id: 's1', contract_id: 'c1', contract_title: 'NDA with Beta' },
      summary: 'Every signer signed "NDA with Beta"',
    });
    expect(signed).to.deep.equal({
      event: 'signature_completed',
      title: 'Signature completed: NDA with Beta',
      text: 'Every signer signed "NDA with Beta"',
      facts: [{ label: 'Contract', value: 'NDA with Beta' }],
    });
    const alert = notificationFor({
      type: 'compliance.alert',
      data: { contract_title: 'DPA', regulation: 'GDPR', severity: 'high' },
      summary: 'GDPR issue',
    });
    expect(alert?.facts).to.deep.include({ label: 'Regulation', value: 'GDPR' });
    expect(notificationFor({ type: 'contract.updated', data: {}, summary: 'x' })).to.equal(null);
  });
});
