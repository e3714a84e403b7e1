/**
 * Retrieval-augmented chat: answers over the organization's contracts and documents
 * with citations, streamed as Server-Sent Events (or one JSON answer), conversations kept
 * per user; the contract re-index; retrieval statistics.
 */
import { Router, type Response } from 'express';
import type { Services } from '../../platform/services';
import { EMBEDDING_DIM } from '../../platform/ai/port';
import { MAX_CONTEXT_CHARS, passageVectors, retrieve } from '../../services/search/retrieval';
import { collectionStats, MIN_RELEVANCE } from '../../services/search/vector-store';
import {
  chatHistory,
  citationOf,
  HISTORY_TURNS,
  historyQuery,
  openConversation,
  sendBody,
  withVectorStore,
} from '../../services/search/conversations';
import { reindexContracts } from '../../services/search/reindex-contracts';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import '../operations/chat';

function sse(res: Response, event: Record<string, unknown>) {
  res.write(`data: ${JSON.stringify(event)}\n\n`);
}

export function chatRouter(s: Services): Router {
  const router = Router();

  router.post('/chat/send', authorize('chat:use'), async (req, res) => {
    const p = principalOf(req);
    const body = sendBody.parse(req.body);
    const conversation = await openConversation(p, body);
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
      const storedVectors = passageVectors(s, context);
      for await (const piece of s.ai.generateAnswer({ question: body.message, context, history, signal: abort.signal, storedVectors })) {
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
    res.json({
      conversation_id: conversationId,
      message: { role: 'assistant', content: answer, citations, timestamp: timestamp.toISOString() },
    });
  });

  router.get('/chat/history', authorize('chat:use'), async (req, res) => {
    res.json(await chatHistory(principalOf(req), historyQuery.parse(req.query)));
  });

  router.post('/chat/sync-contracts', authorize('chat:sync'), idempotent(s.logger), async (req, res) => {
    res.status(202).json(await reindexContracts(s, principalOf(req).organizationId));
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
