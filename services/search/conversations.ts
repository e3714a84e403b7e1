/**
 * Chat conversations: what a question may carry, whose conversations a caller sees, and
 * the citations kept with an answer. The answer itself comes from answer-question.ts.
 */
import { z } from 'zod';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { idSchema } from '../../platform/input';
import { orgFilter } from '../../models/base';
import { Conversation, messageView } from '../../models/conversation';
import type { Passage } from './retrieval';
import { isVectorStoreDown } from './vector-store';
import { searchErrors } from './errors';

export const sendBody = z.object({
  message: z.string().trim().min(1).max(8000),
  conversation_id: idSchema.optional(),
  stream: z.boolean().default(true),
});
export const historyQuery = z.object({ conversation_id: idSchema.optional() });

/** Earlier turns handed to the model with a new question. */
export const HISTORY_TURNS = 10;

const round = (n: number) => Math.round(n * 10000) / 10000;
export const citationOf = (p: Passage) => ({ title: p.title, page: p.page, section: p.section, relevance: round(p.relevance) });

/** Vector-store outages answer 503 with a clear detail; anything else propagates. */
export async function withVectorStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isVectorStoreDown(err))
      throw searchErrors.search_unavailable(
        'The vector store (Elasticsearch) is unavailable, so questions cannot be answered now; try again shortly',
      );
    throw err;
  }
}

/**
 * The caller's own conversations: a user's, or one API key's. A key acts for its creator's
 * organization but does not read the creator's conversations, nor the creator the key's.
 * Rows from before `api_key_id` existed have none and count as the user's.
 */
const ownedBy = (p: Principal) => ({ ...orgFilter(p.organizationId), user_id: p.userId, api_key_id: p.kind === 'api_key' ? p.id : null });

/** The conversation a question continues (404 when it is not the caller's), or a new one titled by it. */
export async function openConversation(p: Principal, body: z.infer<typeof sendBody>) {
  return body.conversation_id
    ? findOwned(Conversation, p, body.conversation_id, 'Conversation', { where: ownedBy(p) })
    : new Conversation({ ...ownedBy(p), title: body.message.slice(0, 80), messages: [] });
}

/** One conversation's messages, or the caller's latest 100 conversations. */
export async function chatHistory(p: Principal, q: z.infer<typeof historyQuery>) {
  if (q.conversation_id !== undefined) {
    const conversation = await findOwned(Conversation, p, q.conversation_id, 'Conversation', { where: ownedBy(p) });
    return { conversation_id: conversation.id, messages: conversation.messages.map(messageView) };
  }
  const conversations = await Conversation.find(ownedBy(p)).sort({ updated_at: -1 }).limit(100);
  return {
    conversations: conversations.map((c) => ({
      conversation_id: c.id,
      title: c.title,
      message_count: c.messages.length,
      updated_at: (c.get('updated_at') as Date).toISOString(),
    })),
  };
}
