/**
 * Slack chat notifications through an incoming webhook
 * (https://api.slack.com/messaging/webhooks): a JSON POST
 * with a `text` fallback (shown in notifications) and Block Kit `blocks` (a header, then a
 * section with the text and up to ten label/value fields). Slack answers 200 `ok`; errors
 * are plain-text codes such as 400 `invalid_blocks`, 404 `no_service`, 429 with Retry-After.
 */
import type { Connector, ConnectorContext, Notification } from './connector';
import { VendorError } from './connector';
import { channelOf, chatConnectBody, postWebhook, testMessage } from './context';

type Message = Omit<Notification, 'event'>;

/** Block Kit limits (https://api.slack.com/reference/block-kit/blocks): header text 150 characters, section text 3000, ten fields of 2000. */
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function slackMessage(m: Message) {
  const fields = m.facts.slice(0, 10).map((f) => ({ type: 'mrkdwn', text: cut(`*${f.label}*\n${f.value}`, 2000) }));
  return {
    text: cut(`${m.title}: ${m.text}`, 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: cut(m.title, 150), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: cut(m.text, 3000) }, ...(fields.length ? { fields } : {}) },
    ],
  };
}

async function post(ctx: ConnectorContext, m: Message): Promise<void> {
  const answer = (await postWebhook('slack', ctx, slackMessage(m))).trim();
  if (answer !== 'ok') throw new VendorError('slack', 200, `unexpected answer: ${answer.slice(0, 100)}`);
}

export const slackConnector: Connector<typeof chatConnectBody> = {
  type: 'slack',
  kind: 'chat',
  defaultBaseUrl: 'https://hooks.slack.com',
  connectBody: chatConnectBody,
  secretFields: ['webhook_url'],
  async test(ctx) {
    await post(ctx, testMessage(ctx));
    return { ok: true, detail: `Slack accepted a test message for ${channelOf(ctx)}` };
  },
  notify: post,
};
