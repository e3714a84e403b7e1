/**
 * Answer a question over the organization's contracts and documents, with citations:
 * retrieve, keep the question, generate, keep the answer. Retrieval and the question's
 * write happen before the first event, so an outage fails the request before any byte is
 * sent; the caller streams the pieces as they come.
 */
import type { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { passageVectors, retrieve } from './retrieval';
import { citationOf, HISTORY_TURNS, openConversation, withVectorStore, type sendBody } from './conversations';

type Citation = ReturnType<typeof citationOf>;

export type AnswerEvent =
  /** Retrieved and the question kept: generation starts. */
  | { type: 'ready'; citations: Citation[] }
  | { type: 'chunk'; content: string }
  /** The whole answer, kept in the conversation. */
  | { type: 'answered'; conversation_id: string; message: { role: 'assistant'; content: string; citations: Citation[]; timestamp: Date } };

/** Stops early, and keeps no answer, when `signal` aborts (the client went away). */
export async function* answerQuestion(
  s: Engines,
  p: Principal,
  body: z.infer<typeof sendBody>,
  signal: AbortSignal,
): AsyncGenerator<AnswerEvent, void> {
  const conversation = await openConversation(p, body);
  const history = conversation.messages.slice(-HISTORY_TURNS).map((m) => ({ role: m.role, content: m.content }));
  const context = await withVectorStore(() => retrieve(s, p.organizationId, body.message));
  const citations = context.map(citationOf);
  conversation.messages.push({ role: 'user', content: body.message, timestamp: new Date() });
  await conversation.save();
  yield { type: 'ready', citations };

  let answer = '';
  const storedVectors = passageVectors(s, context);
  for await (const piece of s.ai.generateAnswer({ question: body.message, context, history, signal, storedVectors })) {
    if (signal.aborted) return;
    answer += piece;
    yield { type: 'chunk', content: piece };
  }
  if (signal.aborted) return;
  const timestamp = new Date();
  conversation.messages.push({ role: 'assistant', content: answer, citations, timestamp });
  await conversation.save();
  yield { type: 'answered', conversation_id: conversation.id, message: { role: 'assistant', content: answer, citations, timestamp } };
}
