/**
 * Microsoft Teams chat notifications through an incoming webhook (Office 365 connector or
 * Workflows), as an Adaptive Card attachment
 * (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using):
 * `{ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive',
 * content: AdaptiveCard }] }`. Connectors answer 200 `1`, Workflows 202; throttling comes as
 * 429 with Retry-After, or from connectors as a 200 whose text reports "HTTP error 429".
 */
import { VendorError } from './connector';
import { webhookChatConnector, type ChatMessage } from './context';

export const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';

export function teamsMessage(m: ChatMessage) {
  const body: Array<Record<string, unknown>> = [
    { type: 'TextBlock', text: m.title, size: 'Large', weight: 'Bolder', wrap: true },
    { type: 'TextBlock', text: m.text, wrap: true },
  ];
  if (m.facts.length) body.push({ type: 'FactSet', facts: m.facts.map((f) => ({ title: f.label, value: f.value })) });
  return {
    type: 'message',
    attachments: [
      {
        contentType: ADAPTIVE_CARD,
        contentUrl: null,
        content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body },
      },
    ],
  };
}

export const teamsConnector = webhookChatConnector({
  type: 'teams',
  name: 'Teams',
  defaultBaseUrl: 'https://outlook.office.com',
  render: teamsMessage,
  // Office 365 connectors report throttling inside a 200 instead of answering 429.
  checkAnswer: (answer) => {
    if (answer.includes('HTTP error 429')) throw new VendorError('teams', 429, answer.slice(0, 200));
  },
  testSent: 'a test card',
});
