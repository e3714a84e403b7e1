/**
 * Exclusive changes on any store: a claim is a row in `claims`, unique per (scope, key), so of
 * many takers exactly one inserts it; the others wait for its release or give up. Every
 * change that must happen once (a signer's act, an approval decision, a token's use, an
 * import's end, one reindex per organization) runs as take → re-read → check → write →
 * release, so a loser re-reads the winner's write and is refused by the record's own state,
 * having written nothing. It rests on the unique index alone: FerretDB 1.24 applies a
 * conditional update as a read and a separate write, so two of them can both pass, but it
 * enforces unique indexes like MongoDB.
 *
 * A claim has a lease: a holder that died (a crashed process) blocks its record only until
 * the lease ends, when the next taker removes the row and inserts its own. A holder stalled
 * past its lease could overlap with the next one; leases are therefore far longer than the
 * work they guard (seconds for a request's write).
 */
import { randomUUID } from 'node:crypto';
import { trusted } from 'mongoose';
import { Claim } from '../models/claim';
import { type AppError, defineErrors } from './errors';
import { isDuplicateKey } from './mongo';

export const claimErrors = defineErrors({
  change_in_progress: { status: 409, meaning: 'Another change of the same record is being made right now; retry' },
});

export interface ClaimOptions {
  /** How long the claim holds if never released: far longer than the work it guards. */
  leaseMs: number;
  /** How long to wait for a claim someone else holds; 0 tries once. */
  waitMs?: number;
  /** What the holder does, shown to those who find the claim taken. */
  detail?: string;
  /** The holder's token, when others must extend or release the claim (a workflow's id); random by default. */
  holder?: string;
}

export interface HeldClaim {
  scope: string;
  key: string;
  holder: string;
}

/** Who holds a claim, as a refused taker sees it. */
export interface ClaimHolder {
  detail: string | null;
  taken_at: Date;
  expires_at: Date;
}

/** The claim is held by someone else (after waiting `waitMs`). */
export class ClaimBusyError extends Error {
  constructor(
    readonly scope: string,
    readonly held: ClaimHolder | null,
  ) {
    super(`claim ${scope} is held`);
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One attempt: the claim, or who holds it. A holder past its lease is removed (by its row's id and lease) and the insert tried again. */
async function tryTake(scope: string, key: string, holder: string, opts: ClaimOptions): Promise<ClaimHolder | null> {
  await Claim.init();
  for (;;) {
    const now = new Date();
    try {
      await Claim.create({
        scope,
        key,
        holder,
        detail: opts.detail ?? null,
        taken_at: now,
        expires_at: new Date(now.getTime() + opts.leaseMs),
      });
      return null;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const held = await Claim.findOne({ scope, key }).lean();
    if (!held) continue; // released meanwhile
    if (held.expires_at > now) return { detail: held.detail ?? null, taken_at: held.taken_at, expires_at: held.expires_at };
    // A dead holder's claim: only this row goes, so a claim taken meanwhile by another stays.
    await Claim.deleteOne({ _id: held._id, holder: held.holder });
  }
}

/** Takes the claim on (scope, key), waiting up to `waitMs` while another holds it; ClaimBusyError after that. */
export async function takeClaim(scope: string, key: string, opts: ClaimOptions): Promise<HeldClaim> {
  const holder = opts.holder ?? randomUUID();
  const deadline = Date.now() + (opts.waitMs ?? 0);
  // Waiters back off (10 ms doubling to 160 ms, with jitter), so many of them do not load the store.
  for (let wait = 10; ; wait = Math.min(wait * 2, 160)) {
    const held = await tryTake(scope, key, holder, opts);
    if (!held) return { scope, key, holder };
    if (Date.now() >= deadline) throw new ClaimBusyError(scope, held);
    await pause(wait / 2 + Math.random() * wait);
  }
}

/** Gives the claim up; best effort, as a claim that cannot be released ends with its lease. */
export async function releaseClaim(c: HeldClaim): Promise<void> {
  await Claim.deleteOne({ scope: c.scope, key: c.key, holder: c.holder }).catch(() => undefined);
}

/** Moves the claim's lease to `leaseMs` from now; false when it is no longer this holder's (its lease ended and another took it). */
export async function extendClaim(c: HeldClaim, leaseMs: number): Promise<boolean> {
  const res = await Claim.updateOne(
    { scope: c.scope, key: c.key, holder: c.holder, expires_at: trusted({ $gt: new Date() }) },
    { $set: { expires_at: new Date(Date.now() + leaseMs) } },
  );
  return res.matchedCount === 1;
}

/** How long a change made within a request may hold its record: its reads and writes take milliseconds. */
export const CHANGE_LEASE_MS = 30_000;
/** How long a request waits for a change of the same record before answering 409. */
export const CHANGE_WAIT_MS = 10_000;

export interface ExclusiveOptions extends Partial<ClaimOptions> {
  /** The error a taker gets when the claim stays held; 409 `change_in_progress` by default. */
  busy?: (held: ClaimHolder | null) => AppError;
}

/**
 * Runs `fn` while holding the claim on (scope, key), then releases it, also when `fn` throws.
 * `fn` must read the record itself: what the caller read before may be stale.
 */
export async function exclusively<T>(scope: string, key: string, fn: () => Promise<T>, opts: ExclusiveOptions = {}): Promise<T> {
  let claim: HeldClaim;
  try {
    claim = await takeClaim(scope, key, { leaseMs: CHANGE_LEASE_MS, waitMs: CHANGE_WAIT_MS, ...opts });
  } catch (err) {
    if (!(err instanceof ClaimBusyError)) throw err;
    throw opts.busy?.(err.held) ?? claimErrors.change_in_progress('Another change of this record is being made right now; try again');
  }
  try {
    return await fn();
  } finally {
    await releaseClaim(claim);
  }
}
