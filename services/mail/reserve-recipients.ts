/**
 * Before an organization mails people outside it (signing requests, invitations): an owner
 * must have verified their email address, so a throwaway registration cannot send the
 * service's mail to strangers, and each address counts against the organization's quota
 * for 24 hours (in Redis, so every API process shares it; the window starts at the first
 * address). Follow-ups of a request (the next signer, notices) are not counted again; each
 * reminder round takes its recipients from the same quota (`takeMailQuota`), so a request
 * cannot mail a stranger every few days for a year on one count.
 */
import { trusted } from 'mongoose';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Engines } from '../../platform/engines';
import { redisKey } from '../../platform/redis';
import { retryAfter } from '../../platform/errors';
import { User } from '../../models/user';
import { mailErrors } from './errors';

const DAY_SECONDS = 24 * 3600;
const quotas = new WeakMap<Engines, RateLimiterRedis>();

function quotaOf(s: Engines): RateLimiterRedis {
  let quota = quotas.get(s);
  if (!quota) {
    const options = {
      points: s.config.MAIL_RECIPIENTS_PER_ORG_PER_DAY,
      duration: DAY_SECONDS,
      keyPrefix: redisKey(s.config, 'mail-quota'),
    };
    // While Redis is down the process counts on its own, like the rate limits.
    quota = new RateLimiterRedis({ ...options, storeClient: s.redis, insuranceLimiter: new RateLimiterMemory(options) });
    quotas.set(s, quota);
  }
  return quota;
}

/**
 * Takes `count` addresses from the organization's quota for the day; when they do not fit,
 * takes nothing and answers how long until they would (ms).
 */
export async function takeMailQuota(
  s: Engines,
  organizationId: string,
  count: number,
): Promise<{ ok: true } | { ok: false; retryMs: number }> {
  const quota = quotaOf(s);
  const key = `org:${organizationId}`;
  try {
    await quota.consume(key, count);
    return { ok: true };
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    // A refused batch takes nothing: the points it added come back.
    await quota.reward(key, count);
    return { ok: false, retryMs: err.msBeforeNext };
  }
}

/** Refuses (403, 429) unless the organization may mail `addresses` now; takes them from its quota. */
export async function reserveRecipients(s: Engines, organizationId: string, addresses: readonly string[]): Promise<void> {
  const verified = await User.exists({ organization_id: organizationId, role: 'owner', email_verified_at: trusted({ $ne: null }) });
  if (!verified)
    throw mailErrors.email_not_verified(
      'An owner of this organization must verify their email address before it mails anyone else: open the link mailed at registration, or ask for a new one with POST /auth/email/verify/resend',
    );
  const taken = await takeMailQuota(s, organizationId, addresses.length);
  if (!taken.ok) {
    const limit = s.config.MAIL_RECIPIENTS_PER_ORG_PER_DAY;
    throw mailErrors.mail_quota_exceeded(
      `This organization may mail at most ${limit} addresses in 24 hours, and ${addresses.length} more would pass that; try again later`,
      retryAfter(taken.retryMs),
    );
  }
}
