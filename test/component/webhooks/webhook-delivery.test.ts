import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { Types } from 'mongoose';
import { Webhook } from 'standardwebhooks';
import { testEnv } from '../../support/env';
import { startReceiver } from '../../support/receiver';
import { encryptSecret } from '../../../platform/security/crypto';
import { WebhookSubscription } from '../../../models/webhook-subscription';
import { WebhookDelivery } from '../../../models/webhook-delivery';
import { webhookBatchWorkflow } from '../../../workflows/webhook-delivery';
import { OrganizationId, RecordId, RecordKind, recordSearchAttributes } from '../../../platform/temporal/search-attributes';
import { createWebhookActivities } from '../../../activities/webhooks';

/** A batch's deliveries end to end on the Temporal dev server, the real worker and real receivers. */
describe('webhook delivery (dev server)', () => {
  it("delivers the rows naming its workflow to each subscription once, signed with that subscription's secret", async () => {
    const { config, services } = testEnv();
    const orgId = new Types.ObjectId();
    const eventId = new Types.ObjectId().toHexString();
    const workflowId = `webhook-batch-${eventId}`;
    const body = JSON.stringify({
      event: 'contract.created',
      timestamp: new Date().toISOString(),
      data: { id: 'c1' },
      organization_id: orgId.toHexString(),
    });
    const subs = await Promise.all(
      ['whsec-test-secret-123', 'whsec-other-secret-456'].map(async (secret) => {
        const receiver = await startReceiver(() => 204);
        const sub = await WebhookSubscription.create({
          organization_id: orgId,
          url: `${receiver.url}/hook`,
          events: ['contract.created'],
          secret_encrypted: encryptSecret(config, secret),
        });
        const delivery = await WebhookDelivery.create({
          organization_id: orgId,
          subscription_id: sub._id,
          event_id: new Types.ObjectId(eventId),
          event: 'contract.created',
          body,
          workflow_id: workflowId,
        });
        return { secret, receiver, sub, deliveryId: delivery._id.toHexString() };
      }),
    );

    const handle = await services.temporal.workflow.start(webhookBatchWorkflow, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId,
      typedSearchAttributes: recordSearchAttributes('webhook-delivery', orgId.toHexString(), eventId),
    });
    expect(await handle.result()).to.deep.equal(['delivered', 'delivered']);

    for (const { secret, receiver, deliveryId } of subs) {
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).to.have.length(1); // once, not once per subscription
      const req = receiver.received[0]!;
      expect(req.body).to.equal(body);
      expect(req.headers['x-service-event']).to.equal('contract.created');
      expect(req.headers['x-service-delivery']).to.equal(deliveryId);
      expect(req.headers['x-service-signature']).to.equal(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
      // The Standard Webhooks reference verifier accepts it with the secret's raw bytes.
      const verified = new Webhook(Buffer.from(secret).toString('base64')).verify(req.body, {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      });
      expect(verified).to.deep.include({ event: 'contract.created' });
      const stored = await WebhookDelivery.findById(deliveryId).lean();
      expect(stored).to.include({ status: 'delivered', attempts: 1, last_status_code: 204 });
      await receiver.close();
    }

    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(RecordKind)).to.equal('webhook-delivery');
    expect(description.typedSearchAttributes.get(OrganizationId)).to.equal(orgId.toHexString());
    expect(description.typedSearchAttributes.get(RecordId)).to.equal(eventId);
  });

  it('posts an attempt once when it runs twice at the same time (a retried workflow task, a second worker)', async () => {
    const { config, services } = testEnv();
    const receiver = await startReceiver(() => 200);
    const orgId = new Types.ObjectId();
    const sub = await WebhookSubscription.create({
      organization_id: orgId,
      url: receiver.url,
      events: ['vendor.created'],
      secret_encrypted: encryptSecret(config, 'whsec-claim-secret-789'),
    });
    const delivery = await WebhookDelivery.create({
      organization_id: orgId,
      subscription_id: sub._id,
      event_id: new Types.ObjectId(),
      event: 'vendor.created',
      body: '{"event":"vendor.created"}',
    });
    const activities = createWebhookActivities(services);
    const attemptWebhookDelivery = (i: Parameters<typeof activities.attemptWebhookDelivery>[0]) => activities.attemptWebhookDelivery(i);
    const input = { deliveryId: delivery.id, subscriptionId: sub.id, attempt: 1, retryInMs: 30_000 };
    const outcomes = await Promise.all([attemptWebhookDelivery(input), attemptWebhookDelivery(input)]);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received).to.have.length(1);
    // The attempt that lost the claim cannot know the outcome yet: it asks for the next attempt,
    // which finds the delivery delivered and posts nothing.
    expect(outcomes.sort()).to.deep.equal(['delivered', 'retry']);
    expect(await attemptWebhookDelivery({ ...input, attempt: 2, retryInMs: 300_000 })).to.equal('delivered');
    // A re-run of attempt 1 after it was made posts nothing either.
    expect(await attemptWebhookDelivery(input)).to.equal('delivered');
    expect(receiver.received).to.have.length(1);
    expect(await WebhookDelivery.findById(delivery._id).lean()).to.include({ status: 'delivered', attempts: 1 });
    await receiver.close();
  });
});
