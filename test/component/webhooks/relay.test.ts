import { expect } from 'chai';
import { Types, trusted } from 'mongoose';
import { testEnv } from '../../support/env';
import { startReceiver } from '../../support/receiver';
import { encryptSecret } from '../../../platform/security/crypto';
import { recordEvent, type NewEvent } from '../../../platform/outbox/record-event';
import { relayEvent, relayOnRecord, relayPending } from '../../../services/wiring';
import { Event } from '../../../models/event';
import { WebhookDelivery } from '../../../models/webhook-delivery';
import { WebhookSubscription } from '../../../models/webhook-subscription';
import { createTemporalClient } from '../../../platform/temporal/client';
import { webhookBody } from '../../../services/webhooks/deliver-events';
import { batchWorkflowId } from '../../../workflows/webhook-delivery.shared';

/** The outbox relay on the real engines: one delivery per event and subscription, however often it runs. */
describe('event relay', () => {
  const orgId = new Types.ObjectId().toHexString();
  // A contract id that exists nowhere: other consumers (e.g. the contract index) treat it as removed.
  const contractId = new Types.ObjectId().toHexString();
  const event = (title: string, organizationId = orgId): NewEvent => ({
    organizationId,
    type: 'contract.created',
    data: { id: contractId, title, type: 'nda', status: 'draft', counterparty: 'Acme' },
    actor: { type: 'system', id: null },
    resource: { type: 'contract', id: contractId },
    summary: `Contract "${title}" created`,
  });

  it('relays a recorded event at once, and a replay starts nothing new', async () => {
    const { config, services } = testEnv();
    const receiver = await startReceiver(() => 200);
    await WebhookSubscription.create({
      organization_id: orgId,
      url: receiver.url,
      events: ['contract.created'],
      secret_encrypted: encryptSecret(config, 'relay-secret-0123456789'),
    });
    const recorded = await recordEvent(testEnv().services, event('Immediate'));
    const [req] = await receiver.waitFor(1);
    expect(JSON.parse(req!.body)).to.deep.include({ event: 'contract.created', organization_id: orgId });

    await relayEvent(services, recorded.id); // already relayed: nothing happens
    await Event.updateOne({ _id: recorded._id }, { relayed_at: null });
    await relayEvent(services, recorded.id); // replayed after a "crash": same delivery, no new start
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received).to.have.length(1);
    expect(await WebhookDelivery.countDocuments({ event_id: recorded._id })).to.equal(1);
    expect((await Event.findById(recorded._id).lean())!.relayed_at).to.be.instanceOf(Date);
    await receiver.close();
  });

  it('catches up on events whose immediate relay did not happen', async () => {
    const { services } = testEnv();
    const receiver = await startReceiver(() => 200);
    const sub = await WebhookSubscription.create({
      organization_id: orgId,
      url: receiver.url,
      events: ['contract.created'],
      secret_encrypted: encryptSecret(testEnv().config, 'relay-secret-0123456789'),
    });
    testEnv().services.events.listen(undefined); // as if the process died right after the commit
    let recorded;
    try {
      recorded = await recordEvent(testEnv().services, event('Late'));
    } finally {
      relayOnRecord(services);
    }
    expect((await Event.findById(recorded._id).lean())!.relayed_at).to.equal(null);
    await relayPending(services, { olderThanMs: 0 });
    const received = await receiver.waitFor(1);
    expect((JSON.parse(received[0]!.body) as { data: { title: string } }).data.title).to.equal('Late');
    expect(await WebhookDelivery.countDocuments({ event_id: recorded._id, subscription_id: sub._id })).to.equal(1);
    await receiver.close();
  });

  /** Records events as a process that dies before relaying them would (no immediate relay). */
  async function recordUnrelayed(organizationId: string, titles: string[]) {
    testEnv().services.events.listen(undefined);
    try {
      return await Promise.all(titles.map((t) => recordEvent(testEnv().services, event(t, organizationId))));
    } finally {
      relayOnRecord(testEnv().services);
    }
  }

  /** An organization of its own with one subscription to a local receiver. */
  async function subscribed() {
    const receiver = await startReceiver(() => 200);
    const organizationId = new Types.ObjectId().toHexString();
    const sub = await WebhookSubscription.create({
      organization_id: organizationId,
      url: receiver.url,
      events: ['contract.created'],
      secret_encrypted: encryptSecret(testEnv().config, 'relay-secret-0123456789'),
    });
    return { receiver, organizationId, sub };
  }

  it('delivers a batch whose start failed through the catch-up loop, each delivery once', async () => {
    const { services, config } = testEnv();
    const { receiver, organizationId } = await subscribed();
    const recorded = await recordUnrelayed(organizationId, ['Batch A', 'Batch B', 'Batch C']);
    // The relay's start fails (nothing listens on the address): the rows are written, the events stay unrelayed.
    const down = createTemporalClient({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE });
    const failed = await Promise.allSettled(
      recorded.map((e) => relayEvent({ ...services, temporal: down.client, temporalConnection: down.connection }, e.id)),
    );
    await down.connection.close();
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
    const ids = recorded.map((e) => e._id);
    expect(await WebhookDelivery.countDocuments({ event_id: trusted({ $in: ids }) })).to.equal(3);
    expect(await Event.countDocuments({ _id: trusted({ $in: ids }), relayed_at: null })).to.equal(3);

    await relayPending(services, { olderThanMs: 0 });
    await receiver.waitFor(3);
    await new Promise((r) => setTimeout(r, 1500)); // nothing more arrives
    const titles = receiver.received.map((r) => (JSON.parse(r.body) as { data: { title: string } }).data.title);
    expect(titles.sort()).to.deep.equal(['Batch A', 'Batch B', 'Batch C']);
    expect(await WebhookDelivery.countDocuments({ event_id: trusted({ $in: ids }), status: 'delivered', attempts: 1 })).to.equal(3);
    await receiver.close();
  });

  it("a start of a batch's workflow delivers every row naming it, and a replayed batch posts nothing again", async () => {
    const { services } = testEnv();
    const { receiver, organizationId, sub } = await subscribed();
    // A process wrote one batch's rows and died before starting its workflow.
    const recorded = await recordUnrelayed(organizationId, ['Crash A', 'Crash B', 'Crash C']);
    const workflowId = batchWorkflowId(recorded[0]!.id);
    await WebhookDelivery.create(
      recorded.map((e) => ({
        organization_id: e.organization_id,
        subscription_id: sub._id,
        event_id: e._id,
        event: e.type,
        body: webhookBody(e),
        workflow_id: workflowId,
      })),
    );
    // The catch-up loop replays each event: each finds its row and starts (or signals) the same workflow.
    await relayPending(services, { olderThanMs: 0 });
    await receiver.waitFor(3);
    const ids = recorded.map((e) => e._id);
    expect(await Event.countDocuments({ _id: trusted({ $in: ids }), relayed_at: null })).to.equal(0);
    await services.temporal.workflow.getHandle(workflowId).result();

    // Replayed again (a crash before relayed_at was written): the same rows, no second post.
    await Event.updateMany({ _id: trusted({ $in: ids }) }, { relayed_at: null });
    await relayPending(services, { olderThanMs: 0 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received.map((r) => r.headers['x-service-delivery']).sort()).to.deep.equal(
      (await WebhookDelivery.find({ event_id: trusted({ $in: ids }) }, { _id: 1 }).lean()).map((d) => d._id.toHexString()).sort(),
    );
    expect(receiver.received).to.have.length(3);
    expect(
      await WebhookDelivery.countDocuments({ event_id: trusted({ $in: ids }), workflow_id: workflowId, status: 'delivered' }),
    ).to.equal(3);
    await receiver.close();
  });
});
