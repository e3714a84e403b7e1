/**
 * Retrieval-augmented chat: answers over the organization's contracts and documents
 * with citations, streamed as Server-Sent Events (or one JSON answer), conversations kept
 * per user; the contract re-index; retrieval statistics.
 */
import { Router, type Response } from 'express';
import type { Engines } from '../../platform/engines';
import { EMBEDDING_DIM } from '../../platform/ai/port';
import { MAX_CONTEXT_CHARS } from '../../services/search/retrieval';
import { collectionStats, MIN_RELEVANCE } from '../../services/search/vector-store';
import { chatHistory, historyQuery, sendBody, withVectorStore } from '../../services/search/conversations';
import { answerQuestion, type AnswerEvent } from '../../services/search/answer-question';
import { reindexContracts } from '../../services/search/reindex-contracts';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import '../operations/chat';

function sse(res: Response, event: object) {
  res.write(`data: ${JSON.stringify(event)}\n\n`);
}

export function chatRouter(s: Engines): Router {
  const router = Router();

  router.post('/send', authorize('chat:use'), async (req, res) => {
    // A client that goes away stops the generation.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const body = sendBody.parse(req.body);
    const events = answerQuestion(s, principalOf(req), body, abort.signal);
    // Retrieval and the question's write come first, so an outage is still a proper 503.
    const ready = await events.next();
    if (body.stream) {
      res.status(200).set({
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
    }
    let answered: Extract<AnswerEvent, { type: 'answered' }> | undefined;
    try {
      for (let e = ready; !e.done; e = await events.next()) {
        if (e.value.type === 'answered') answered = e.value;
        else if (e.value.type === 'chunk' && body.stream) sse(res, e.value);
      }
    } catch (err) {
      if (!body.stream) throw err;
      s.logger.error({ err }, 'answer generation failed mid-stream');
      sse(res, { type: 'error', detail: 'The answer could not be completed' });
      res.end();
      return;
    }
    if (!answered) return; // aborted
    const { conversation_id, message } = answered;
    if (!body.stream) {
      res.json({ conversation_id, message: { ...message, timestamp: message.timestamp.toISOString() } });
      return;
    }
    sse(res, { type: 'citations', sources: message.citations.map(({ title, page, relevance }) => ({ title, page, relevance })) });
    sse(res, { type: 'done', conversation_id });
    res.end();
  });

  router.get('/history', authorize('chat:use'), async (req, res) => {
    res.json(await chatHistory(principalOf(req), historyQuery.parse(req.query)));
  });

  router.post('/sync-contracts', authorize('chat:sync'), idempotent(s.logger), async (req, res) => {
    res.status(202).json(await reindexContracts(s, principalOf(req).organizationId));
  });

  router.get('/stats', authorize('chat:use'), async (req, res) => {
    const collections = await withVectorStore(() => collectionStats(s, principalOf(req).organizationId));
    res.json({
      collections,
      models: s.ai.models,
      config: { embedding_dim: EMBEDDING_DIM, min_relevance_score: MIN_RELEVANCE, max_context_chars: MAX_CONTEXT_CHARS },
    });
  });

  return router;
}
