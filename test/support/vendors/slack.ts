/**
 * A local Slack incoming webhook that accepts only what Slack documents
 * (https://api.slack.com/messaging/webhooks and the Block Kit
 * reference): POST, JSON, `text` and/or `blocks` of known block types within their limits.
 * It answers like Slack: 200 `ok`, or a plain-text error code (400 invalid_payload /
 * invalid_blocks, 404 no_service), and 429 `rate_limited` with Retry-After when told to.
 */
import { z } from 'zod';
import { startReceiver } from '../receiver';
import { waitForLength } from './wait';

const textObject = (max: number) =>
  z.strictObject({
    type: z.enum(['plain_text', 'mrkdwn']),
    text: z.string().min(1).max(max),
    emoji: z.boolean().optional(),
    verbatim: z.boolean().optional(),
  });

const block = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('header'),
    block_id: z.string().optional(),
    text: textObject(150).extend({ type: z.literal('plain_text') }),
  }),
  z
    .strictObject({
      type: z.literal('section'),
      block_id: z.string().optional(),
      text: textObject(3000).optional(),
      fields: z.array(textObject(2000)).min(1).max(10).optional(),
    })
    .refine((b) => b.text || b.fields, 'a section needs text or fields'),
  z.strictObject({ type: z.literal('divider'), block_id: z.string().optional() }),
  z.strictObject({ type: z.literal('context'), block_id: z.string().optional(), elements: z.array(textObject(3000)).min(1).max(10) }),
]);

const payload = z.object({ text: z.string().optional(), blocks: z.array(z.unknown()).max(50).optional() });
export type SlackMessage = { text?: string; blocks: Array<z.infer<typeof block>> };

/** Slack's webhook paths: /services/T.../B.../<24 characters>. */
const PATH = /^\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{24}$/;

export async function startSlackFake() {
  const messages: SlackMessage[] = [];
  let throttleSeconds: number | null = null;
  const text = (status: number, body: string, headers: Record<string, string> = {}) => ({
    status,
    body,
    headers: { 'content-type': 'text/html', ...headers },
  });

  const receiver = await startReceiver((req) => {
    if (!PATH.test(req.path)) return text(404, 'no_service');
    if (req.method !== 'POST') return text(405, 'invalid_method');
    if (throttleSeconds !== null) {
      const seconds = throttleSeconds;
      throttleSeconds = null;
      return text(429, 'rate_limited', { 'retry-after': String(seconds) });
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return text(400, 'invalid_payload');
    let json: unknown;
    try {
      json = JSON.parse(req.body);
    } catch {
      return text(400, 'invalid_payload');
    }
    const p = payload.safeParse(json);
    if (!p.success) return text(400, 'invalid_payload');
    if (!p.data.text && !p.data.blocks?.length) return text(400, 'missing_text_or_fallback_or_attachments');
    const blocks = z.array(block).safeParse(p.data.blocks ?? []);
    if (!blocks.success) return text(400, 'invalid_blocks');
    messages.push({ text: p.data.text, blocks: blocks.data });
    return text(200, 'ok');
  });

  return {
    /** A webhook URL this fake accepts; other paths answer 404 no_service. */
    webhookUrl: `${receiver.url}/services/T0FAKE01/B0FAKE01/abcdefghijklmnopqrstuvwx`,
    url: receiver.url,
    messages,
    received: receiver.received,
    /** The next request is answered 429 with `Retry-After: seconds`. */
    rateLimitOnce(seconds: number) {
      throttleSeconds = seconds;
    },
    waitForMessages: (count: number, timeoutMs?: number) => waitForLength(messages, count, 'slack fake messages', timeoutMs),
    close: receiver.close,
  };
}
