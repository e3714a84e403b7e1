import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { Types } from 'mongoose';
import { Webhook } from 'standardwebhooks';
import { testEnv } from './support/env';
import { startReceiver } from './support/receiver';
import { encryptSecret } from '../lib/crypto';
import { WebhookSubscription } from '../models/webhook-subscription';
import { WebhookDelivery } from '../models/webhook-delivery';
import { webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { OrganizationId, RecordId, RecordKind, recordSearchAttributes } from '../workflows/search-attributes';

/** One delivery end to end on the Temporal dev server, the real worker and a real receiver. */
describe('webhook delivery (dev server)', () => {
  it('posts the signed body once, records it, and is findable by search attributes', async () => {
    const { config, services } = testEnv();
    const receiver = await startReceiver(() => 204);
    const orgId = new Types.ObjectId();
    const secret = 'whsec-test-secret-123';
    const sub = await WebhookSubscription.create({
      organization_id: orgId, url: `${receiver.url}/hook`, events: ['contract.created'], secret_encrypted: encryptSecret(config, secret),
    });
    const body = JSON.stringify({ event: 'contract.created', timestamp: new Date().toISOString(), data: { id: 'c1' }, organization_id: orgId.toHexString() });
    const delivery = await WebhookDelivery.create({
      organization_id: orgId, subscription_id: sub._id, event_id: new Types.ObjectId(), event: 'contract.created', body,
    });
    const deliveryId = delivery._id.toHexString();

    const handle = await services.temporal.workflow.start(webhookDeliveryWorkflow, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: `webhook-delivery-${deliveryId}`,
      args: [{ deliveryId }],
      typedSearchAttributes: recordSearchAttributes('webhook-delivery', orgId.toHexString(), deliveryId),
    });
    expect(await handle.result()).to.equal('delivered');

    const [req] = await receiver.waitFor(1);
    expect(req!.body).to.equal(body);
    expect(req!.headers['x-service-event']).to.equal('contract.created');
    expect(req!.headers['x-service-delivery']).to.equal(deliveryId);
    expect(req!.headers['x-service-signature']).to.equal(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    // The Standard Webhooks reference verifier accepts it with the secret's raw bytes.
    const verified = new Webhook(Buffer.from(secret).toString('base64')).verify(req!.body, {
      'webhook-id': String(req!.headers['webhook-id']),
      'webhook-timestamp': String(req!.headers['webhook-timestamp']),
      'webhook-signature': String(req!.headers['webhook-signature']),
    });
    expect(verified).to.deep.include({ event: 'contract.created' });

    const stored = await WebhookDelivery.findById(deliveryId).lean();
    expect(stored).to.include({ status: 'delivered', attempts: 1, last_status_code: 204 });

    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(RecordKind)).to.equal('webhook-delivery');
    expect(description.typedSearchAttributes.get(OrganizationId)).to.equal(orgId.toHexString());
    expect(description.typedSearchAttributes.get(RecordId)).to.equal(deliveryId);
    await receiver.close();
  });
});
