import { Schema, model } from 'mongoose';

/**
 * A write to an indexed list's records that has not yet reached the list index
 * (platform/lists/list-index.ts): written before the record, removed once the index has it.
 * One left behind is a write whose process died, or that found Redis unreachable: while
 * one lives, that list's pages are checked against the store. Its `_id` dates it.
 */
const schema = new Schema(
  {
    /** The list index's key base of one organization's list (`<prefix>:list:{<list>:<organization id>}`). */
    list: { type: String, required: true, index: true },
  },
  { versionKey: false },
);

export const PendingListWrite = model('PendingListWrite', schema, 'pending_list_writes');
