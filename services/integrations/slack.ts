/**
 * Slack chat notifications through an incoming webhook
 * (https://api.slack.com/messaging/webhooks): a JSON POST
 * with a `text` fallback (shown in notifications) and Block Kit `blocks` (a header, then a
 * section with the text and up to ten label/value fields). Slack answers 200 `ok`; errors
 * are plain-text codes such as 400 `invalid_blocks`, 404 `no_service`, 429 with Retry-After.
 */
import { VendorError } from './connector';
import { webhookChatConnector, type ChatMessage } from './context';

/** Block Kit limits (https://api.slack.com/reference/block-kit/blocks): header text 150 characters, section text 3000, ten fields of 2000. */
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function slackMessage(m: ChatMessage) {
  const fields = m.facts.slice(0, 10).map((f) => ({ type: 'mrkdwn', text: cut(`*${f.label}*\n${f.value}`, 2000) }));
  return {
    text: cut(`${m.title}: ${m.text}`, 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: cut(m.title, 150), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: cut(m.text, 3000) }, ...(fields.length ? { fields } : {}) },
    ],
  };
}

export const slackConnector = webhookChatConnector({
  type: 'slack',
  name: 'Slack',
  defaultBaseUrl: 'https://hooks.slack.com',
  render: slackMessage,
  checkAnswer: (answer) => {
    if (answer.trim() !== 'ok') throw new VendorError('slack', 200, `unexpected answer: ${answer.trim().slice(0, 100)}`);
  },
  testSent: 'a test message',
});
