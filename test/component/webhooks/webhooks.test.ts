import { expect } from 'chai';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import type { Server } from 'node:http';
import { Types } from 'mongoose';
import { Webhook } from 'standardwebhooks';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { startReceiver, type Received } from '../../support/receiver';
import { testEnv } from '../../support/env';
import { startOutageStack, type OutageStack } from '../../support/outage';
import { freePort } from '../../support/processes';
import { createApp } from '../../../api/app';
import { createWebhookActivities } from '../../../activities/webhooks';
import { addressRefusal } from '../../../platform/security/url-policy';
import { decryptSecret, encryptSecret } from '../../../platform/security/crypto';
import { WebhookSubscription } from '../../../models/webhook-subscription';
import { WebhookDelivery } from '../../../models/webhook-delivery';
import { OrganizationId, RecordId, RecordKind } from '../../../platform/temporal/search-attributes';

interface Subscription {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  created_at: string;
}
interface Delivery {
  id: string;
  event: string;
  subscription_id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  redelivery_of: string | null;
  workflow_id: string;
}
interface Deliveries {
  deliveries: Delivery[];
  total: number;
}
interface Payload {
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
  organization_id: string;
}

const secret = 'receiver-shared-secret-0123456789';

async function subscribe(user: TestUser, url: string, events: string[], s = secret) {
  return api<Subscription>('POST', '/webhooks/subscribe', { token: user.token, body: { url, events, secret: s } });
}

async function deliveriesOf(user: TestUser, query = '') {
  return api<Deliveries>('GET', `/webhooks/deliveries${query}`, { token: user.token });
}

/** What a receiver does: recompute both signatures over the raw body with its secret. */
function verify(req: Received, key: string): Payload {
  const expected = Buffer.from(`sha256=${createHmac('sha256', key).update(req.body).digest('hex')}`);
  const got = Buffer.from(String(req.headers['x-service-signature']));
  expect(got.length === expected.length && timingSafeEqual(got, expected), 'X-Service-Signature').to.equal(true);
  return new Webhook(Buffer.from(key).toString('base64')).verify(req.body, {
    'webhook-id': String(req.headers['webhook-id']),
    'webhook-timestamp': String(req.headers['webhook-timestamp']),
    'webhook-signature': String(req.headers['webhook-signature']),
  }) as Payload;
}

describe('webhooks', () => {
  let owner: TestUser;
  before(async () => {
    owner = await signUp();
  });

  describe('POST /webhooks/subscribe', () => {
    it('creates a subscription and never returns or stores the secret in clear', async () => {
      const res = await subscribe(owner, 'https://hooks.example.com/in', ['contract.created', 'vendor.created', 'contract.created']);
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ url: 'https://hooks.example.com/in', active: true });
      expect(res.body.events).to.deep.equal(['contract.created', 'vendor.created']);
      expect(res.body.created_at).to.match(/Z$/);
      expect(res.text).not.to.contain(secret);
      const stored = await WebhookSubscription.findById(res.body.id).lean();
      expect(stored!.secret_encrypted).not.to.contain(secret);
      expect(decryptSecret(testEnv().config, stored!.secret_encrypted)).to.equal(secret);

      const list = await api<{ webhooks: Subscription[]; total: number }>('GET', '/webhooks', { token: owner.token });
      expect(list.status).to.equal(200);
      expect(list.body.webhooks.map((w) => w.id)).to.include(res.body.id);
      expect(list.text).not.to.contain('secret');
    });

    it('refuses unknown events, short secrets and forbidden URLs with 400', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ url: 'https://h.example.com', events: ['contract.exploded'], secret }, /^events\.0: must be one of/],
        [{ url: 'https://h.example.com', events: [], secret }, /^events:/],
        [{ url: 'https://h.example.com', events: ['contract.created'], secret: 'short' }, /^secret:/],
        [{ url: 'ftp://h.example.com/x', events: ['contract.created'], secret }, /^url: must use http or https/],
        [{ url: 'http://169.254.169.254/latest/meta-data', events: ['contract.created'], secret }, /^url: .*metadata/],
        [{ url: 'http://[fd00:ec2::254]/', events: ['contract.created'], secret }, /^url: .*metadata/],
        // Metadata services are refused even though this run allows private addresses, in every disguise.
        [{ url: 'http://168.63.129.16/machine', events: ['contract.created'], secret }, /^url: .*metadata/],
        [{ url: 'http://100.100.100.200/latest/meta-data', events: ['contract.created'], secret }, /^url: .*metadata/],
        [{ url: 'http://[::169.254.169.254]/latest/meta-data', events: ['contract.created'], secret }, /^url: .*metadata/],
        [{ url: 'http://[::ffff:169.254.169.254]/', events: ['contract.created'], secret }, /^url: .*metadata/],
        [{ url: 'http://[64:ff9b::169.254.169.254]/', events: ['contract.created'], secret }, /^url: .*metadata/],
        [{ url: 'http://[::168.63.129.16]/', events: ['contract.created'], secret }, /^url: .*metadata/],
        [{ url: { $gt: '' }, events: ['contract.created'], secret }, /^url:/],
      ];
      for (const [body, detail] of cases) {
        const res = await api('POST', '/webhooks/subscribe', { token: owner.token, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.detail, JSON.stringify(body)).to.match(detail);
      }
    });

    it('never names the address a name resolved to, at subscribe time or in a delivery', async function () {
      this.timeout(30000);
      // The machine's own name resolves to a loopback or private address (/etc/hosts), as a
      // name pointing into a private network would.
      const name = hostname();
      const resolved = (await lookup(name, { all: true })).map((a) => a.address);
      expect(
        resolved.every((ip) => addressRefusal(ip, { allowPrivate: false }) !== null),
        `${name} resolves to ${resolved.join(', ')}`,
      ).to.equal(true);
      const { services } = testEnv();
      const strict = { ...services, config: { ...services.config, ALLOW_PRIVATE_WEBHOOK_URLS: false } };
      const server: Server = createApp(strict).listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      const port = await freePort();
      try {
        const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
        const refused = await api('POST', '/webhooks/subscribe', {
          base,
          token: owner.token,
          body: { url: `http://${name}:${port}/hook`, events: ['contract.created'], secret },
        });
        expect(refused.status).to.equal(400);
        expect(refused.body.detail).to.equal(`url: ${name} resolves to a loopback or private address`);
        for (const ip of resolved) expect(refused.text).not.to.contain(ip);

        // At delivery time the same refusal, and a connection error without its address.
        const org = await signUp();
        const unreachable = await subscribe(org, `http://localhost:${port}/hook`, ['contract.created']);
        expect(unreachable.status).to.equal(201);
        const delivery = await WebhookDelivery.create({
          organization_id: new Types.ObjectId(org.organizationId),
          subscription_id: new Types.ObjectId(unreachable.body.id),
          event_id: new Types.ObjectId(),
          event: 'contract.created',
          body: '{}',
        });
        const resolvedSub = await WebhookSubscription.create({
          organization_id: new Types.ObjectId(org.organizationId),
          url: `http://${name}:${port}/hook`,
          events: ['contract.created'],
          secret_encrypted: encryptSecret(services.config, secret),
        });
        const toResolved = await WebhookDelivery.create({
          organization_id: new Types.ObjectId(org.organizationId),
          subscription_id: resolvedSub._id,
          event_id: new Types.ObjectId(),
          event: 'contract.created',
          body: '{}',
        });
        await createWebhookActivities(services).attemptWebhookDelivery({ deliveryId: delivery.id, attempt: 1, retryInMs: null });
        await createWebhookActivities(strict).attemptWebhookDelivery({ deliveryId: toResolved.id, attempt: 1, retryInMs: null });
        const list = await deliveriesOf(org);
        const errors = Object.fromEntries(list.body.deliveries.map((d) => [d.id, d.last_error]));
        expect(errors).to.deep.equal({
          [delivery.id]: 'the connection was refused',
          [toResolved.id]: `url refused: ${name} resolves to a loopback or private address`,
        });
        for (const ip of [...resolved, '127.0.0.1', '::1']) expect(list.text).not.to.contain(ip);
      } finally {
        await new Promise((r) => server.close(r));
      }
    });

    it('holds at most WEBHOOK_SUBSCRIPTIONS_PER_ORG subscriptions per organization, also when they arrive at once', async function () {
      this.timeout(30000);
      const org = await signUp();
      const limit = testEnv().config.WEBHOOK_SUBSCRIPTIONS_PER_ORG;
      expect(limit).to.equal(20);
      for (let i = 0; i < limit - 2; i++)
        expect((await subscribe(org, `https://hooks.example.com/${i}`, ['contract.created'])).status).to.equal(201);
      // Five at once for the last two places.
      const racing = await Promise.all(
        Array.from({ length: 5 }, (_, i) => subscribe(org, `https://hooks.example.com/race-${i}`, ['contract.created'])),
      );
      const won = racing.filter((r) => r.status === 201).length;
      expect(won).to.be.at.most(2);
      for (const r of racing.filter((x) => x.status !== 201)) {
        expect(r.status).to.equal(409);
        expect(r.body).to.deep.equal({
          detail: `This organization already has ${limit} webhook subscriptions, the most allowed; remove one first`,
        });
      }
      const list = await api<{ webhooks: Subscription[]; total: number }>('GET', '/webhooks', { token: org.token });
      expect(list.body.total).to.equal(limit - 2 + won);
      for (let total = list.body.total; total < limit; total++)
        expect((await subscribe(org, `https://hooks.example.com/fill-${total}`, ['contract.created'])).status).to.equal(201);
      expect((await subscribe(org, 'https://hooks.example.com/over', ['contract.created'])).status).to.equal(409);
      expect((await api<{ total: number }>('GET', '/webhooks', { token: org.token })).body.total).to.equal(limit);
      // Another organization is not affected, and removing one makes room.
      expect((await subscribe(await signUp(), 'https://hooks.example.com/other', ['contract.created'])).status).to.equal(201);
      expect((await api('DELETE', `/webhooks/${list.body.webhooks[0]!.id}`, { token: org.token })).status).to.equal(204);
      expect((await subscribe(org, 'https://hooks.example.com/after', ['contract.created'])).status).to.equal(201);
    });

    it('replays the first answer for a repeated Idempotency-Key', async () => {
      const headers = { 'idempotency-key': `sub-${Date.now()}` };
      const body = { url: 'https://hooks.example.com/idem', events: ['contract.created'], secret };
      const first = await api<Subscription>('POST', '/webhooks/subscribe', { token: owner.token, body, headers });
      const again = await api<Subscription>('POST', '/webhooks/subscribe', { token: owner.token, body, headers });
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body.id).to.equal(first.body.id);
    });

    it('is for owners and admins; another organization sees 404', async () => {
      const member = await addMember(owner, 'member');
      expect((await subscribe(member, 'https://hooks.example.com/m', ['contract.created'])).status).to.equal(403);
      expect((await api('GET', '/webhooks', { token: member.token })).status).to.equal(403);
      const admin = await addMember(owner, 'admin');
      const created = await subscribe(admin, 'https://hooks.example.com/a', ['contract.created']);
      expect(created.status).to.equal(201);

      const stranger = await signUp();
      expect((await api('DELETE', `/webhooks/${created.body.id}`, { token: stranger.token })).status).to.equal(404);
      expect((await api('DELETE', '/webhooks/not-an-id', { token: owner.token })).status).to.equal(404);
      const removed = await api('DELETE', `/webhooks/${created.body.id}`, { token: owner.token });
      expect(removed.status).to.equal(204);
      expect(removed.text).to.equal('');
      const list = await api<{ webhooks: Subscription[] }>('GET', '/webhooks', { token: owner.token });
      expect(list.body.webhooks.map((w) => w.id)).not.to.include(created.body.id);
    });
  });

  describe('deliveries', () => {
    it('signs contract and vendor events; the body carries what a receiver needs', async function () {
      this.timeout(60000);
      const org = await signUp();
      const receiver = await startReceiver(() => 200);
      const sub = await subscribe(org, `${receiver.url}/hooks`, ['contract.created', 'contract.updated', 'vendor.created']);
      expect(sub.status).to.equal(201);

      const contract = await api<{ id: string }>('POST', '/contracts', {
        token: org.token,
        body: { title: 'MSA with Acme', type: 'service_agreement', counterparty: 'Acme Ltd', content: 'Secret terms' },
      });
      expect(contract.status).to.equal(201);
      const vendor = await api<{ id: string }>('POST', '/vendors', { token: org.token, body: { name: 'Acme Supplies' } });
      expect(vendor.status).to.equal(201);
      await api('PUT', `/contracts/${contract.body.id}`, { token: org.token, body: { status: 'active' } });

      const received = await receiver.waitFor(3);
      const byEvent = new Map(received.map((r) => [String(r.headers['x-service-event']), r]));
      for (const [event, req] of byEvent) {
        expect(req.method).to.equal('POST');
        expect(req.path).to.equal('/hooks');
        expect(req.headers['content-type']).to.equal('application/json');
        expect(req.headers['x-service-delivery']).to.match(/^[0-9a-f]{24}$/);
        expect(req.headers['webhook-id']).to.equal(req.headers['x-service-delivery']);
        expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(60);
        const payload = verify(req, secret);
        expect(Object.keys(payload).sort()).to.deep.equal(['data', 'event', 'organization_id', 'timestamp']);
        expect(payload.event).to.equal(event);
        expect(payload.organization_id).to.equal(org.organizationId);
        expect(payload.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
      expect(verify(byEvent.get('contract.created')!, secret).data).to.deep.equal({
        id: contract.body.id,
        title: 'MSA with Acme',
        type: 'service_agreement',
        status: 'draft',
        counterparty: 'Acme Ltd',
      });
      expect(verify(byEvent.get('contract.updated')!, secret).data).to.include({ id: contract.body.id, status: 'active' });
      expect(verify(byEvent.get('vendor.created')!, secret).data).to.include({ id: vendor.body.id, name: 'Acme Supplies' });
      expect(received.map((r) => r.body).join()).not.to.contain('Secret terms');
      // A wrong secret does not verify.
      expect(() => verify(received[0]!, 'some-other-secret-0123456789')).to.throw();

      // The deliveries view, and the delivery's workflow in Temporal by id and search attributes.
      const list = await deliveriesOf(org, '?status=delivered');
      expect(list.status).to.equal(200);
      expect(list.body.total).to.equal(3);
      const created = list.body.deliveries.find((d) => d.event === 'contract.created')!;
      expect(created).to.include({
        id: String(byEvent.get('contract.created')!.headers['x-service-delivery']),
        subscription_id: sub.body.id,
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        next_attempt_at: null,
      });
      // A batch's workflow delivers its events to all their subscriptions; its record is its first event.
      const eventId = /^webhook-batch-([0-9a-f]{24})$/.exec(created.workflow_id)?.[1];
      expect(eventId).to.be.a('string');
      const description = await testEnv().services.temporal.workflow.getHandle(created.workflow_id).describe();
      expect(description.typedSearchAttributes.get(RecordKind)).to.equal('webhook-delivery');
      expect(description.typedSearchAttributes.get(OrganizationId)).to.equal(org.organizationId);
      expect(description.typedSearchAttributes.get(RecordId)).to.equal(eventId);
      expect((await deliveriesOf(org, '?status=failed')).body.total).to.equal(0);
      expect((await deliveriesOf(org, '?status=lost')).status).to.equal(400);
      expect((await deliveriesOf(org, '?page=0')).status).to.equal(400);
      expect((await deliveriesOf(await signUp())).body.total).to.equal(0);
      await receiver.close();
    });

    it('a 410 answer disables the subscription', async () => {
      const org = await signUp();
      const receiver = await startReceiver(() => 410);
      const sub = await subscribe(org, receiver.url, ['vendor.created']);
      await api('POST', '/vendors', { token: org.token, body: { name: 'Gone Inc' } });
      await receiver.waitFor(1);
      let list: Subscription[] = [];
      for (let i = 0; i < 50; i++) {
        list = (await api<{ webhooks: Subscription[] }>('GET', '/webhooks', { token: org.token })).body.webhooks;
        if (!list[0]!.active) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(list.find((w) => w.id === sub.body.id)).to.include({ active: false, disabled_reason: 'receiver answered 410 Gone' });
      const [delivery] = (await deliveriesOf(org)).body.deliveries;
      expect(delivery).to.include({ status: 'failed', attempts: 1, last_status_code: 410, next_attempt_at: null });
      // No more deliveries to a disabled subscription.
      await api('POST', '/vendors', { token: org.token, body: { name: 'Gone Again' } });
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.received).to.have.length(1);
      expect((await api('POST', `/webhooks/deliveries/${delivery!.id}/retry`, { token: org.token })).status).to.equal(409);
      await receiver.close();
    });

    it('shows a failing delivery as pending with its next attempt, and retries a failed one as a fresh delivery', async function () {
      this.timeout(60000);
      const org = await signUp();
      let healthy = false;
      const receiver = await startReceiver(() => (healthy ? 204 : 503));
      await subscribe(org, receiver.url, ['contract.created']);
      const before = Date.now();
      await api('POST', '/contracts', { token: org.token, body: { title: 'Retry me', type: 'nda', counterparty: 'Flaky Co' } });
      await receiver.waitFor(1);

      let pending: Delivery | undefined;
      for (let i = 0; i < 50 && !pending?.attempts; i++) {
        pending = (await deliveriesOf(org)).body.deliveries[0];
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(pending).to.include({ status: 'pending', attempts: 1, last_status_code: 503 });
      const next = Date.parse(pending!.next_attempt_at!);
      expect(next - before).to.be.within(29000, 35000); // attempt 2 thirty seconds after attempt 1 failed
      const retryPending = await api('POST', `/webhooks/deliveries/${pending!.id}/retry`, { token: org.token });
      expect(retryPending.status).to.equal(409);

      // Skip the rest of the schedule (proven in workflow time by the time-skipping test):
      // end the workflow and mark the delivery failed, as its third failed attempt would.
      await testEnv().services.temporal.workflow.getHandle(pending!.workflow_id).terminate('test: end of schedule');
      await WebhookDelivery.updateOne({ _id: pending!.id }, { status: 'failed', next_attempt_at: null });

      healthy = true;
      const retried = await api<Delivery>('POST', `/webhooks/deliveries/${pending!.id}/retry`, { token: org.token });
      expect(retried.status).to.equal(201);
      expect(retried.body.id).not.to.equal(pending!.id);
      expect(retried.body).to.include({ redelivery_of: pending!.id, event: 'contract.created', status: 'pending' });
      const [, second] = await receiver.waitFor(2);
      expect(second!.headers['x-service-delivery']).to.equal(retried.body.id);
      expect(second!.body).to.equal(receiver.received[0]!.body); // the same event, byte for byte
      verify(second!, secret);
      expect((await api('POST', `/webhooks/deliveries/${pending!.id}/retry`, { token: org.token })).status).to.equal(409);
      expect((await api('POST', `/webhooks/deliveries/${pending!.id}/retry`, { token: (await signUp()).token })).status).to.equal(404);
      await receiver.close();
    });
  });

  describe('when Temporal is down', function () {
    this.timeout(180000);
    let stack: OutageStack;
    before(async () => {
      stack = await startOutageStack('outage');
    });
    after(() => stack?.stop());

    it('delivers an event recorded during the outage exactly once after Temporal returns', async () => {
      const { base, token } = stack;
      const receiver = await startReceiver(() => 200);
      const sub = await api('POST', '/webhooks/subscribe', {
        base,
        token,
        body: { url: receiver.url, events: ['contract.created'], secret },
      });
      expect(sub.status).to.equal(201);
      const create = (title: string) =>
        api<{ id: string }>('POST', '/contracts', { base, token, body: { title, type: 'nda', counterparty: 'Blink Co' } });

      expect((await create('Before the outage')).status).to.equal(201);
      await receiver.waitFor(1, 60000); // the worker is polling

      await stack.stopTemporal();
      const started = Date.now();
      const during = await create('During the outage');
      expect(during.status).to.equal(201); // the change is accepted; delivery waits for Temporal
      expect(Date.now() - started).to.be.below(3000);
      await new Promise((r) => setTimeout(r, 4000));
      expect(receiver.received).to.have.length(1);

      await stack.startTemporal();
      const received = await receiver.waitFor(2, 90000);
      await new Promise((r) => setTimeout(r, 5000)); // nothing more arrives: no second delivery
      expect(received).to.have.length(2);
      const payload = verify(received[1]!, secret);
      expect(payload.data).to.include({ id: during.body.id, title: 'During the outage' });
      expect(received[1]!.headers['x-service-delivery']).not.to.equal(received[0]!.headers['x-service-delivery']);
      expect(stack.worker.running()).to.equal(true);
      await receiver.close();
    });
  });
});
