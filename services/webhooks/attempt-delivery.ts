/**
 * Webhook delivery attempts: one signed POST per attempt, recorded on the delivery.
 * Connections go through the URL policy's agent, so the address actually connected to
 * is checked (not only the URL's text) and redirects are never followed.
 */
import { request } from 'undici';
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { decryptSecret } from '../../platform/security/crypto';
import { connectionFailure, createPolicyAgent, urlRefusal } from '../../platform/security/url-policy';
import { deliveryHeaders } from './webhook-signature';
import { WebhookAttemptClaim } from '../../models/webhook-attempt-claim';
import { WebhookDelivery } from '../../models/webhook-delivery';
import { WebhookSubscription } from '../../models/webhook-subscription';
import { isDuplicateKey } from '../../platform/mongo';
import { sharedFlush } from '../../platform/shared-flush';
import type { AttemptInput, DeliveryRef } from '../../workflows/webhook-delivery.shared';

export type Outcome = 'delivered' | 'failed' | 'retry';

/** The attempts of one process: its policy agent, and the subscription reads its attempts share. */
export function webhookAttempts(s: Engines) {
  const policy = { allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS };
  const dispatcher = createPolicyAgent(policy);
  // A batch's attempts run side by side, mostly to one subscription: those that ask while its
  // read is under way share the next read (still made after they asked).
  const readSubscription = sharedFlush((id: string) => WebhookSubscription.findById(id).exec());

  async function send(url: string, headers: Record<string, string>, body: string) {
    const started = Date.now();
    const refused = urlRefusal(url, policy);
    if (refused) return { statusCode: null, error: `url refused: ${refused}`, durationMs: 0 };
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher,
        signal: AbortSignal.timeout(s.config.WEBHOOK_TIMEOUT_MS),
      });
      await res.body.dump(); // the receiver's body is not needed; free the socket
      return { statusCode: res.statusCode, error: null, durationMs: Date.now() - started };
    } catch (err) {
      const error =
        err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${s.config.WEBHOOK_TIMEOUT_MS} ms` : connectionFailure(err);
      return { statusCode: null, error, durationMs: Date.now() - started };
    }
  }

  return {
    async attempt({ deliveryId, subscriptionId, attempt, retryInMs }: AttemptInput): Promise<Outcome> {
      const _id = new Types.ObjectId(deliveryId);
      // The claim: this attempt's number is taken once (a unique insert), so an attempt that runs
      // again (its workflow task retried, a second worker) never posts again.
      const claimed = await WebhookAttemptClaim.create({ delivery_id: _id, attempt }).then(
        () => true,
        (err: unknown) => {
          if (isDuplicateKey(err)) return false;
          throw err;
        },
      );
      const [delivery, known] = await Promise.all([
        claimed ? WebhookDelivery.findOne({ _id, status: 'pending' }) : null,
        claimed && subscriptionId ? readSubscription(subscriptionId) : null,
      ]);
      if (!delivery) {
        const current = await WebhookDelivery.findById(_id, { status: 1 }).lean();
        if (current?.status === 'delivered') return 'delivered';
        // Gone, failed, or this attempt was already made by a run that did not report back.
        return current?.status === 'pending' && retryInMs !== null ? 'retry' : 'failed';
      }
      const subscription = subscriptionId ? known : await WebhookSubscription.findById(delivery.subscription_id);
      if (!subscription || !subscription.active) {
        await WebhookDelivery.updateOne(
          { _id },
          { status: 'failed', last_error: 'subscription removed or disabled', next_attempt_at: null },
        );
        return 'failed';
      }

      const headers = deliveryHeaders({
        secret: decryptSecret(s.config, subscription.secret_encrypted),
        deliveryId,
        event: delivery.event,
        timestamp: Math.floor(Date.now() / 1000),
        body: delivery.body,
      });
      const result = await send(subscription.url, headers, delivery.body);
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const gone = result.statusCode === 410;
      const error = ok ? null : (result.error ?? `receiver answered ${result.statusCode}`);
      const outcome: Outcome = ok ? 'delivered' : gone || retryInMs === null ? 'failed' : 'retry';

      // Returned whole, so the list index takes the record as written instead of reading it back.
      await WebhookDelivery.findOneAndUpdate(
        { _id },
        {
          $set: {
            attempts: attempt,
            last_status_code: result.statusCode,
            last_error: error,
            status: outcome === 'retry' ? 'pending' : outcome,
            next_attempt_at: outcome === 'retry' ? new Date(Date.now() + retryInMs!) : null,
            ...(ok ? { delivered_at: new Date() } : {}),
          },
          $push: { attempt_log: { attempt, at: new Date(), status_code: result.statusCode, error, duration_ms: result.durationMs } },
        },
        { returnDocument: 'after' },
      );
      if (gone) {
        // 410 Gone: the receiver asks never to be called again.
        await WebhookSubscription.updateOne({ _id: subscription._id }, { active: false, disabled_reason: 'receiver answered 410 Gone' });
      }
      return outcome;
    },

    /** The pending deliveries naming the workflow `workflowId`, for webhookBatchWorkflow. */
    async assigned({ workflowId }: { workflowId: string }): Promise<DeliveryRef[]> {
      const rows = await WebhookDelivery.find({ workflow_id: workflowId, status: 'pending' }, { _id: 1, subscription_id: 1 }).lean();
      return rows.map((d) => ({ deliveryId: d._id.toHexString(), subscriptionId: d.subscription_id.toHexString() }));
    },

    async fail({ deliveryId }: { deliveryId: string }): Promise<void> {
      await WebhookDelivery.updateOne(
        { _id: new Types.ObjectId(deliveryId), status: 'pending' },
        { status: 'failed', next_attempt_at: null },
      );
    },
  };
}
