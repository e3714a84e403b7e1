/**
 * Signing of webhook deliveries. Two schemes on every delivery:
 * - docs/reference/service-interface.md's `X-Service-Signature: sha256=<hex HMAC-SHA256(raw body)>`;
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64
 *   HMAC-SHA256("{id}.{timestamp}.{body}")>`), keyed with the secret's UTF-8 bytes, so
 *   receivers can use off-the-shelf verifiers and reject replays.
 */
import { createHmac } from 'node:crypto';

export function serviceSignature(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

export function standardWebhookSignature(secret: string, id: string, timestamp: number, rawBody: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${rawBody}`).digest('base64')}`;
}

export function deliveryHeaders(args: { secret: string; deliveryId: string; event: string; timestamp: number; body: string }) {
  return {
    'content-type': 'application/json',
    'user-agent': 'contract-service-webhooks/1',
    'x-service-signature': serviceSignature(args.secret, args.body),
    'x-service-event': args.event,
    'x-service-delivery': args.deliveryId,
    'webhook-id': args.deliveryId,
    'webhook-timestamp': String(args.timestamp),
    'webhook-signature': standardWebhookSignature(args.secret, args.deliveryId, args.timestamp, args.body),
  };
}
