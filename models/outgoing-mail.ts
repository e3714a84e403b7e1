import { Schema, model, type InferSchemaType } from 'mongoose';
import { basePlugin } from './base';

/**
 * Mail the service has to send (password resets, invitations): an outbox a mail relay
 * drains. Secrets such as reset tokens travel only here, never in an API response.
 */
const schema = new Schema({
  organization_id: { type: Schema.Types.ObjectId, default: null, index: true },
  to: { type: String, required: true, index: true },
  kind: { type: String, enum: ['password_reset', 'team_invite', 'signature_reminder'], required: true },
  subject: { type: String, required: true },
  body: { type: String, required: true },
  /** Values a template or a test needs (e.g. the token), so the body need not be parsed. */
  data: { type: Schema.Types.Mixed, default: {} },
  sent_at: { type: Date, default: null },
});
schema.plugin(basePlugin);

export type OutgoingMailDoc = InferSchemaType<typeof schema>;
export const OutgoingMail = model('OutgoingMail', schema, 'outgoing_mail');
