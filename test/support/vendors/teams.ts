/**
 * A local Microsoft Teams incoming webhook that accepts only an Adaptive Card message as
 * documented (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using):
 * POST, JSON, `type: "message"`, attachments of contentType
 * `application/vnd.microsoft.card.adaptive` whose content is an AdaptiveCard (1.0–1.6) of
 * TextBlock / FactSet elements. It answers 200 `1` like a connector, 400 with the
 * connector's text on a bad payload, and 429 with Retry-After when told to.
 */
import { z } from 'zod';
import { startReceiver } from '../receiver';
import { waitForLength } from './wait';

const element = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('TextBlock'),
    text: z.string().min(1),
    size: z.enum(['Small', 'Default', 'Medium', 'Large', 'ExtraLarge']).optional(),
    weight: z.enum(['Lighter', 'Default', 'Bolder']).optional(),
    wrap: z.boolean().optional(),
  }),
  z.object({ type: z.literal('FactSet'), facts: z.array(z.strictObject({ title: z.string(), value: z.string() })).min(1) }),
]);

const card = z.object({
  $schema: z.string().optional(),
  type: z.literal('AdaptiveCard'),
  version: z.string().regex(/^1\.[0-6]$/),
  body: z.array(element).min(1),
});

const message = z.object({
  type: z.literal('message'),
  attachments: z
    .array(
      z.object({
        contentType: z.literal('application/vnd.microsoft.card.adaptive'),
        contentUrl: z.string().nullable().optional(),
        content: card,
      }),
    )
    .min(1),
});
export type TeamsMessage = z.infer<typeof message>;

/** Connector webhook paths: /webhookb2/<group>@<tenant>/IncomingWebhook/<id>/<connector>. */
const PATH = /^\/webhookb2\/[\w-]+@[\w-]+\/IncomingWebhook\/\w+\/[\w-]+$/;

export async function startTeamsFake() {
  const messages: TeamsMessage[] = [];
  let throttleSeconds: number | null = null;
  const text = (status: number, body: string, headers: Record<string, string> = {}) => ({
    status,
    body,
    headers: { 'content-type': 'text/plain', ...headers },
  });

  const receiver = await startReceiver((req) => {
    if (!PATH.test(req.path) || req.method !== 'POST') return text(404, 'Not Found');
    if (throttleSeconds !== null) {
      const seconds = throttleSeconds;
      throttleSeconds = null;
      return text(429, 'Microsoft Teams endpoint returned HTTP error 429', { 'retry-after': String(seconds) });
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      return text(400, 'Bad payload received by generic incoming webhook.');
    let json: unknown;
    try {
      json = JSON.parse(req.body);
    } catch {
      return text(400, 'Bad payload received by generic incoming webhook.');
    }
    const parsed = message.safeParse(json);
    if (!parsed.success) return text(400, 'Summary or Text is required.');
    messages.push(parsed.data);
    return text(200, '1');
  });

  return {
    webhookUrl: `${receiver.url}/webhookb2/0a1b2c3d-0000-4000-8000-000000000001@0a1b2c3d-0000-4000-8000-000000000002/IncomingWebhook/abcdef0123456789/0a1b2c3d-0000-4000-8000-000000000003`,
    url: receiver.url,
    messages,
    received: receiver.received,
    /** The next request is answered 429 with `Retry-After: seconds`. */
    rateLimitOnce(seconds: number) {
      throttleSeconds = seconds;
    },
    waitForMessages: (count: number, timeoutMs?: number) => waitForLength(messages, count, 'teams fake messages', timeoutMs),
    close: receiver.close,
  };
}
