/**
 * Every change of a contract's approval requests (a decision, an escalation, an override) is
 * made under one claim per contract (platform/claims.ts): they take turns, each reading what
 * the one before wrote. A conditional write on the request's revision alone does not keep
 * them apart on FerretDB 1.24, which applies it as a read and a separate write: approve and
 * reject at once both answered 200 there, and a rejection could be erased.
 */
import type { Types } from 'mongoose';
import { exclusively } from '../../platform/claims';

export const changeApprovals = <T>(contractId: Types.ObjectId, fn: () => Promise<T>): Promise<T> =>
  exclusively('contract-approvals', contractId.toHexString(), fn);
