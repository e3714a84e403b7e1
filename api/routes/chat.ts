/**
 * Retrieval-augmented chat: answers over the organization's contracts and documents
 * with citations, streamed as Server-Sent Events (or one JSON answer), conversations kept
 * per user; the contract re-index; retrieval statistics.
 */
import { randomBytes } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import type { Principal } from '../../platform/security/principal';
import { EMBEDDING_DIM } from '../../platform/ai/port';
import { MAX_CONTEXT_CHARS, retrieve, type Passage } from '../../services/search/retrieval';
import { COLLECTIONS, collectionStats, isVectorStoreDown, MIN_RELEVANCE } from '../../services/search/vector-store';
import { orgFilter } from '../../models/base';
import { Contract } from '../../models/contract';
import { Conversation, messageView } from '../../models/conversation';
import { startWorkflow } from '../../platform/temporal/client';
import { syncContracts } from '../../workflows/contract-index.shared';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { unavailable } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { eventStream, operation, registry, timestamp } from '../http/openapi';
import { idSchema } from '../../platform/input';

const sendBody = z.object({
  message: z.string().trim().min(1).max(8000),
  conversation_id: idSchema.optional(),
  stream: z.boolean().default(true),
});
const historyQuery = z.object({ conversation_id: idSchema.optional() });

const citationSchema = registry.register('Citation', z.object({ title: z.string(), page: z.number().int(), section: z.string(), relevance: z.number() }));
const messageSchema = registry.register('ChatMessage', z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  timestamp,
  citations: z.array(citationSchema).optional().meta({ description: 'On assistant messages' }),
}));
/** The JSON object on each `data:` line of the answer stream (`sse()` below). */
registry.register('ChatStreamEvent', z.discriminatedUnion('type', [
  z.object({ type: z.literal('chunk'), content: z.string().meta({ description: 'The next piece of the answer text' }) }),
  z.object({ type: z.literal('citations'), sources: z.array(citationSchema.pick({ title: true, page: true, relevance: true })) }),
  z.object({ type: z.literal('done'), conversation_id: idSchema }),
  z.object({ type: z.literal('error'), detail: z.string().meta({ description: 'Generation failed after the stream began' }) }),
]).meta({ description: 'Server-Sent Events: each event is one `data: <json>` line followed by a blank line. Order: `chunk`* then `citations` then `done` (or `error` and the end of the stream).' }));

const tag = 'Chat';
operation({
  path: '/chat/send', method: 'post', tag, body: sendBody,
  summary: 'Ask a question over the organization\'s contracts and documents; the answer cites its sources',
  description: 'With `stream` true (the default) the answer is a `text/event-stream` of `chunk`, `citations` and `done` events; with `stream` false, one JSON answer.',
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
  path: '/chat/history', method: 'get', tag, query: historyQuery, summary: 'One conversation\'s messages, or without conversation_id the caller\'s conversations (latest 100)',
  description: 'Conversations belong to the principal that started them: a user, or one API key. A key never sees its creator\'s conversations, nor the creator the key\'s; another principal\'s conversation id answers 404.',
  responses: {
    200: {
      description: 'Messages of a conversation, or the list of conversations',
      schema: z.union([
        z.object({ conversation_id: idSchema, messages: z.array(messageSchema) }),
        z.object({ conversations: z.array(z.object({ conversation_id: idSchema, title: z.string(), message_count: z.number().int(), updated_at: timestamp })) }),
      ]),
    },
  },
});
operation({
  path: '/chat/sync-contracts', method: 'post', tag, summary: 'Re-index every contract of the organization for the chat (honours Idempotency-Key)',
  responses: { 202: { description: 'The sync workflow started', schema: z.object({ workflow_id: z.string(), contracts: z.number().int() }) }, 503: 'The workflow engine is unavailable' },
});
operation({
  path: '/chat/stats', method: 'get', tag, summary: 'Retrieval statistics: vectors per collection, models, settings',
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

/** Earlier turns handed to the model with a new question. */
const HISTORY_TURNS = 10;

const round = (n: number) => Math.round(n * 10000) / 10000;
const citationOf = (p: Passage) => ({ title: p.title, page: p.page, section: p.section, relevance: round(p.relevance) });

/** Vector-store outages answer 503 with a clear detail; anything else propagates. */
async function withVectorStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isVectorStoreDown(err)) throw unavailable('The vector store (Elasticsearch) is unavailable, so questions cannot be answered now; try again shortly');
    throw err;
  }
}

/**
 * The caller's own conversations: a user's, or one API key's. A key acts for its creator's
 * organization but does not read the creator's conversations, nor the creator the key's.
 * Rows from before `api_key_id` existed have none and count as the user's.
 */
const ownedBy = (p: Principal) => ({ ...orgFilter(p.organizationId), user_id: p.userId, api_key_id: p.kind === 'api_key' ? p.id : null });

function sse(res: Response, event: Record<string, unknown>) {
  res.write(`data: ${JSON.stringify(event)}\n\n`);
}

export function chatRouter(s: Services): Router {
  const router = Router();

  router.post('/chat/send', authorize('chat:use'), async (req, res) => {
    const p = principalOf(req);
    const body = sendBody.parse(req.body);
    const conversation = body.conversation_id
      ? await findOwned(Conversation, p, body.conversation_id, 'Conversation', { where: ownedBy(p) })
      : new Conversation({ ...ownedBy(p), title: body.message.slice(0, 80), messages: [] });
    const history = conversation.messages.slice(-HISTORY_TURNS).map((m) => ({ role: m.role, content: m.content }));

    // Steps 1–5 before any byte is sent, so an outage is still a proper 503.
    const context = await withVectorStore(() => retrieve(s, p.organizationId, body.message));
    const citations = context.map(citationOf);

    conversation.messages.push({ role: 'user', content: body.message, timestamp: new Date() });
    await conversation.save();
    const conversationId = conversation.id;

    // Step 6: generate. A client that goes away stops the generation.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    if (body.stream) {
      res.status(200).set({
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
    }

    let answer = '';
    try {
      for await (const piece of s.ai.generateAnswer({ question: body.message, context, history, signal: abort.signal })) {
        if (abort.signal.aborted) break;
        answer += piece;
        if (body.stream) sse(res, { type: 'chunk', content: piece });
      }
    } catch (err) {
      if (!body.stream) throw err;
      s.logger.error({ err, conversationId }, 'answer generation failed mid-stream');
      sse(res, { type: 'error', detail: 'The answer could not be completed' });
      res.end();
      return;
    }
    if (abort.signal.aborted) return;

    const timestamp = new Date();
    conversation.messages.push({ role: 'assistant', content: answer, citations, timestamp });
    await conversation.save();

    if (body.stream) {
      sse(res, { type: 'citations', sources: citations.map(({ title, page, relevance }) => ({ title, page, relevance })) });
      sse(res, { type: 'done', conversation_id: conversationId });
      res.end();
      return;
    }
    res.json({ conversation_id: conversationId, message: { role: 'assistant', content: answer, citations, timestamp: timestamp.toISOString() } });
  });

  router.get('/chat/history', authorize('chat:use'), async (req, res) => {
    const p = principalOf(req);
    const q = historyQuery.parse(req.query);
    if (q.conversation_id !== undefined) {
      const conversation = await findOwned(Conversation, p, q.conversation_id, 'Conversation', { where: ownedBy(p) });
      res.json({ conversation_id: conversation.id, messages: conversation.messages.map(messageView) });
      return;
    }
    const conversations = await Conversation.find(ownedBy(p)).sort({ updated_at: -1 }).limit(100);
    res.json({
      conversations: conversations.map((c) => ({
        conversation_id: c.id,
        title: c.title,
        message_count: c.messages.length,
        updated_at: (c.get('updated_at') as Date).toISOString(),
      })),
    });
  });

  router.post('/chat/sync-contracts', authorize('chat:sync'), idempotent(s.logger), async (req, res) => {
    const p = principalOf(req);
    const contracts = await Contract.countDocuments(orgFilter(p.organizationId));
    const workflowId = `sync-contracts-${p.organizationId}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    try {
      await startWorkflow(s, syncContracts, { workflowId, args: [{ organizationId: p.organizationId }], organizationId: p.organizationId, recordId: p.organizationId });
    } catch (err) {
      s.logger.error({ err }, 'could not start the contract sync');
      throw unavailable('The workflow engine is unavailable; try again shortly');
    }
    res.status(202).json({ workflow_id: workflowId, contracts });
  });

  router.get('/chat/stats', authorize('chat:use'), async (req, res) => {
    const collections = await withVectorStore(() => collectionStats(s, principalOf(req).organizationId));
    res.json({
      collections,
      models: s.ai.models,
      config: { embedding_dim: EMBEDDING_DIM, min_relevance_score: MIN_RELEVANCE, max_context_chars: MAX_CONTEXT_CHARS },
    });
  });

  return router;
}
