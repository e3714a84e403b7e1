import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { basePlugin, tenantFields } from './base';

const citationSchema = new Schema({ title: String, page: Number, section: String, relevance: Number }, { _id: false });

const messageSchema = new Schema(
  {
    role: { type: String, enum: ['user', 'assistant'], required: true },
    content: { type: String, required: true },
    citations: { type: [citationSchema], default: undefined },
    timestamp: { type: Date, required: true },
  },
  { _id: false },
);

/** A chat conversation of one principal (a user, or an API key of that user), with its messages in order. */
const schema = new Schema({
  ...tenantFields,
  /** The user, or the API key's creator. */
  user_id: { type: String, required: true },
  /** The API key that started it; null for the user's own. */
  api_key_id: { type: String, default: null },
  title: { type: String, required: true },
  messages: { type: [messageSchema], default: [] },
});
schema.plugin(basePlugin);
schema.index({ organization_id: 1, user_id: 1, api_key_id: 1, updated_at: -1 });

export type ConversationDoc = HydratedDocument<InferSchemaType<typeof schema>>;
export const Conversation = model('Conversation', schema, 'conversations');

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
  citations?: Array<{ title: string; page: number; section: string; relevance: number }>;
  timestamp: string;
}

/** A stored message as the API shows it: citations only on assistant messages. */
export function messageView(m: ConversationDoc['messages'][number]): ChatMessage {
  const base = { role: m.role, content: m.content, timestamp: m.timestamp.toISOString() };
  if (m.role !== 'assistant') return base;
  return {
    ...base,
    citations: (m.citations ?? []).map((c) => ({
      title: c.title ?? '',
      page: c.page ?? 1,
      section: c.section ?? '',
      relevance: c.relevance ?? 0,
    })),
  };
}
