/**
 * What a connector call runs with: the integration's settings and decrypted secrets, its
 * vendor base URL, and a `fetch` that only reaches addresses the URL policy allows, never
 * follows redirects and gives up after `INTEGRATION_TIMEOUT_MS`. Also the helpers every
 * connector uses to turn a vendor's answer into data (zod-checked) or a `VendorError`.
 */
import { z } from 'zod';
import { choice, requiredText } from '../../platform/input';
import type { Engines } from '../../platform/engines';
import { decryptSecret, encryptSecret } from '../../platform/security/crypto';
import { policyFetch } from '../../platform/security/policy-fetch';
import type { IntegrationType } from '../../models/integration';
import { NOTIFY_EVENTS, VendorError, type Connector, type ConnectorContext, type Notification } from './connector';

/** `fetch` through the URL policy, with the integration timeout and without following redirects. */
export function integrationFetch(s: Engines): typeof fetch {
  return policyFetch({ allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS }, s.config.INTEGRATION_TIMEOUT_MS);
}

const storedConfig = z.record(z.string(), z.unknown());
const storedCredentials = z.record(z.string(), z.string());

/** Seals a connect body's secret fields for `credentials_encrypted`. */
export function sealCredentials(s: Engines, credentials: Record<string, string>): string {
  return encryptSecret(s.config, JSON.stringify(credentials));
}

/** The context of one call for a stored integration; throws when its credentials were erased. */
export function connectorContext(
  s: Engines,
  integration: { config?: unknown; credentials_encrypted?: string | null },
  connector: Pick<Connector, 'type' | 'defaultBaseUrl'>,
): ConnectorContext {
  if (!integration.credentials_encrypted) throw new Error(`${connector.type} is not connected`);
  const config = storedConfig.parse(integration.config ?? {});
  const credentials = storedCredentials.parse(JSON.parse(decryptSecret(s.config, integration.credentials_encrypted)));
  const base = typeof config.base_url === 'string' && config.base_url ? config.base_url : connector.defaultBaseUrl;
  return { baseUrl: base.replace(/\/+$/, ''), config, credentials, fetch: integrationFetch(s) };
}

/** Milliseconds to wait from a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A non-2xx answer as a VendorError carrying the start of the vendor's body and its Retry-After. */
export async function vendorError(vendor: IntegrationType, res: Response): Promise<VendorError> {
  const body = (await res.text().catch(() => '')).trim().slice(0, 300);
  return new VendorError(vendor, res.status, body || res.statusText || 'no detail', retryAfterMs(res.headers.get('retry-after')));
}

/** A 2xx answer's JSON checked against what the vendor documents; anything else is a VendorError. */
export async function vendorJson<T extends z.ZodType>(vendor: IntegrationType, res: Response, schema: T): Promise<z.infer<T>> {
  if (!res.ok) throw await vendorError(vendor, res);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VendorError(vendor, res.status, `answer is not JSON: ${text.slice(0, 100)}`);
  }
  const checked = schema.safeParse(parsed);
  if (!checked.success) throw new VendorError(vendor, res.status, `unexpected answer: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  return checked.data;
}

/** Chat kinds: POSTs a JSON message to the stored incoming-webhook URL; returns the 2xx body's text. */
export async function postWebhook(vendor: IntegrationType, ctx: ConnectorContext, message: unknown): Promise<string> {
  const url = ctx.credentials.webhook_url;
  if (!url) throw new VendorError(vendor, 400, 'no webhook_url stored');
  const res = await ctx.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
  if (!res.ok) throw await vendorError(vendor, res);
  return res.text();
}

/** The connect-body fields of both chat kinds (the incoming-webhook URL is the endpoint and the secret). */
export const chatConnectBody = z.object({
  webhook_url: z.string().trim().max(2048, 'must be at most 2048 characters').meta({ format: 'uri' }),
  channel: requiredText(200),
  notify_on: z
    .array(choice(NOTIFY_EVENTS))
    .default([])
    .transform((events) => [...new Set(events)]),
});

export const channelOf = (ctx: ConnectorContext) => (typeof ctx.config.channel === 'string' ? ctx.config.channel : '');

/** A notification as a chat message shows it. */
export type ChatMessage = Omit<Notification, 'event'>;

/** What `test` of a chat kind posts. */
const testMessage = (ctx: ConnectorContext): ChatMessage => ({
  title: 'Test message',
  text: `Contract notifications for ${channelOf(ctx)} are connected.`,
  facts: [],
});

/**
 * A chat connector: an incoming webhook that takes one rendered message per notification.
 * The kinds differ only in how a message renders, what answer means success, and their names.
 */
export function webhookChatConnector(spec: {
  type: 'slack' | 'teams';
  name: string;
  defaultBaseUrl: string;
  render: (m: ChatMessage) => unknown;
  /** Throws a VendorError for a 2xx answer that still reports a failure. */
  checkAnswer: (answer: string) => void;
  /** What the test call sent, for its detail ("a test message"). */
  testSent: string;
}): Connector<typeof chatConnectBody> {
  const post = async (ctx: ConnectorContext, m: ChatMessage) => spec.checkAnswer(await postWebhook(spec.type, ctx, spec.render(m)));
  return {
    type: spec.type,
    kind: 'chat',
    defaultBaseUrl: spec.defaultBaseUrl,
    connectBody: chatConnectBody,
    secretFields: ['webhook_url'],
    async test(ctx) {
      await post(ctx, testMessage(ctx));
      return { ok: true, detail: `${spec.name} accepted ${spec.testSent} for ${channelOf(ctx)}` };
    },
    notify: post,
  };
}
