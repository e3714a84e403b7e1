/** The OpenAPI description of the chat operations (api/routes/chat.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { COLLECTIONS } from '../../services/search/vector-store';
import { historyQuery, sendBody } from '../../services/search/conversations';
import { eventStream, operation, registry, timestamp } from '../http/openapi';

const citationSchema = registry.register(
  'Citation',
  z.object({ title: z.string(), page: z.number().int(), section: z.string(), relevance: z.number() }),
);
const messageSchema = registry.register(
  'ChatMessage',
  z.object({
    role: z.enum(['user', 'assistant']),
    content: z.string(),
    timestamp,
    citations: z.array(citationSchema).optional().meta({ description: 'On assistant messages' }),
  }),
);
/** The JSON object on each `data:` line of the answer stream (`sse()` in api/routes/chat.ts). */
registry.register(
  'ChatStreamEvent',
  z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('chunk'), content: z.string().meta({ description: 'The next piece of the answer text' }) }),
      z.object({ type: z.literal('citations'), sources: z.array(citationSchema.pick({ title: true, page: true, relevance: true })) }),
      z.object({ type: z.literal('done'), conversation_id: idSchema }),
      z.object({ type: z.literal('error'), detail: z.string().meta({ description: 'Generation failed after the stream began' }) }),
    ])
    .meta({
      description:
        'Server-Sent Events: each event is one `data: <json>` line followed by a blank line. Order: `chunk`* then `citations` then `done` (or `error` and the end of the stream).',
    }),
);

const tag = 'Chat';
operation({
  path: '/chat/send',
  method: 'post',
  tag,
  body: sendBody,
  summary: "Ask a question over the organization's contracts and documents; the answer cites its sources",
  description:
    'With `stream` true (the default) the answer is a `text/event-stream` of `chunk`, `citations` and `done` events; with `stream` false, one JSON answer.',
  responses: {
    200: {
      description: 'The answer: an event stream, or JSON when `stream` is false',
      content: {
        'text/event-stream': eventStream('ChatStreamEvent', 'One event: its `data` line holds a ChatStreamEvent'),
        'application/json': z.object({ conversation_id: idSchema, message: messageSchema }),
      },
    },
    503: 'The vector store (Elasticsearch) is unavailable',
  },
});
operation({
  path: '/chat/history',
  method: 'get',
  tag,
  query: historyQuery,
  summary: "One conversation's messages, or without conversation_id the caller's conversations (latest 100)",
  description:
    "Conversations belong to the principal that started them: a user, or one API key. A key never sees its creator's conversations, nor the creator the key's; another principal's conversation id answers 404.",
  responses: {
    200: {
      description: 'Messages of a conversation, or the list of conversations',
      schema: z.union([
        z.object({ conversation_id: idSchema, messages: z.array(messageSchema) }),
        z.object({
          conversations: z.array(
            z.object({ conversation_id: idSchema, title: z.string(), message_count: z.number().int(), updated_at: timestamp }),
          ),
        }),
      ]),
    },
  },
});
operation({
  path: '/chat/sync-contracts',
  method: 'post',
  tag,
  summary: 'Re-index every contract of the organization for the chat (honours Idempotency-Key)',
  responses: {
    202: { description: 'The sync workflow started', schema: z.object({ workflow_id: z.string(), contracts: z.number().int() }) },
    503: 'The workflow engine is unavailable',
  },
});
operation({
  path: '/chat/stats',
  method: 'get',
  tag,
  summary: 'Retrieval statistics: vectors per collection, models, settings',
  responses: {
    200: {
      description: 'Statistics',
      schema: z.object({
        collections: z.object(Object.fromEntries(COLLECTIONS.map((c) => [c, z.object({ vectors: z.number().int(), status: z.string() })]))),
        models: z.object({ primary: z.string(), mini: z.string(), premium: z.string(), fallback: z.string(), embedding: z.string() }),
        config: z.object({ embedding_dim: z.number().int(), min_relevance_score: z.number(), max_context_chars: z.number().int() }),
      }),
    },
    503: 'The vector store (Elasticsearch) is unavailable',
  },
});
