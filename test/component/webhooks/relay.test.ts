import { expect } from 'chai';
import { Types } from 'mongoose';
import { testEnv } from '../../support/env';
import { startReceiver } from '../../support/receiver';
import { encryptSecret } from '../../../platform/security/crypto';
import { recordEvent, setEventRecordedListener, type NewEvent } from '../../../platform/outbox/record-event';
import { relayEvent, relayOnRecord, relayPending } from '../../../services/wiring';
import { Event } from '../../../models/event';
import { WebhookDelivery } from '../../../models/webhook-delivery';
import { WebhookSubscription } from '../../../models/webhook-subscription';

/** The outbox relay on the real engines: one delivery per event and subscription, however often it runs. */
describe('event relay', () => {
  const orgId = new Types.ObjectId().toHexString();
  // A contract id that exists nowhere: other consumers (e.g. the contract index) treat it as removed.
  const contractId = new Types.ObjectId().toHexString();
  const event = (title: string): NewEvent => ({
    organizationId: orgId,
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
    const recorded = await recordEvent(event('Immediate'));
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
    setEventRecordedListener(undefined); // as if the process died right after the commit
    let recorded;
    try {
      recorded = await recordEvent(event('Late'));
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
});
