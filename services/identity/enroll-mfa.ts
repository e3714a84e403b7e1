/** MFA enrollment and second factors: TOTP secrets, recovery codes, and the proofs that replace a secret. */
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { decryptSecret, encryptSecret } from '../../platform/security/crypto';
import { verifyPassword } from '../../platform/security/passwords';
import { checkTotp, newTotpSecret, otpauthUrl } from '../../platform/security/totp';
import { recordEvent, type Actor } from '../../platform/outbox/record-event';
import { redisKey } from '../../platform/redis';
import { AppError, badRequest, retryAfter } from '../../platform/errors';
import { identityErrors } from './errors';
import { exclusively } from '../../platform/claims';
import type { EventType } from '../../models/event';
import { User, type UserDoc } from '../../models/user';
import { issueRecoveryCodes, spendRecoveryCode } from './mfa';

export const mfaCode = z.string().max(32).meta({ description: 'A 6-digit TOTP code, or one of the recovery codes (each works once)' });
/** Replacing an enrolled secret takes one of these: what a stolen access token does not carry. */
export const mfaSetupBody = z.object({ code: mfaCode.optional(), password: z.string().min(1).max(256).optional() }).optional();
export const mfaEnableBody = z.object({ code: z.string().max(16) });

/** A new TOTP secret awaiting its first code (kept sealed until then). */
export async function startEnrollment(s: Engines, user: UserDoc) {
  const secret = newTotpSecret();
  user.mfa_pending_secret_encrypted = encryptSecret(s.config, secret);
  await user.save();
  return { secret, otpauth_url: otpauthUrl(s.config.JWT_ISSUER, user.email, secret) };
}

/** An MFA change of a member, in the activity feed (and to webhook subscribers). */
export function recordMfaEvent(user: UserDoc, type: EventType, summary: string, actor: Actor, extra: Record<string, unknown> = {}) {
  return recordEvent({
    organizationId: user.organization_id.toHexString(),
    type,
    data: { id: user.id, email: user.email, full_name: user.full_name, ...extra },
    actor,
    resource: { type: 'user', id: user.id },
    summary,
  });
}

const selfActor = (user: UserDoc): Actor => ({ type: 'user', id: user.id, name: user.full_name });

/** Turns the pending secret into the enrolled one (done by enable, or by the first MFA login); returns new recovery codes. */
async function completeEnrollment(user: UserDoc, sealed: string, step: number): Promise<string[]> {
  const replaced = !!user.mfa_secret_encrypted;
  await User.updateOne(
    { _id: user._id },
    { $set: { mfa_secret_encrypted: sealed, mfa_pending_secret_encrypted: null, mfa_enabled: true, mfa_last_step: step } },
  );
  const codes = await issueRecoveryCodes(user);
  await recordMfaEvent(
    user,
    'team.mfa_enabled',
    replaced ? `${user.full_name} moved MFA to a new authenticator` : `${user.full_name} enabled MFA`,
    selfActor(user),
    { replaced },
  );
  return codes;
}

type SecondFactor = { kind: 'totp'; recoveryCodes?: string[] } | { kind: 'recovery_code'; left: number };

/**
 * Checks a second factor: one of the user's recovery codes (spent by this check), or a
 * TOTP code of the enrolled secret, or else of the pending one (which it then enrolls,
 * answering the new recovery codes).
 */
export async function passSecondFactor(s: Engines, user: UserDoc, code: string): Promise<SecondFactor | null> {
  const left = user.mfa_secret_encrypted ? await spendRecoveryCode(user, code) : null;
  if (left !== null) {
    await recordMfaEvent(
      user,
      'team.mfa_recovery_code_used',
      `${user.full_name} signed in with a recovery code (${left} left)`,
      selfActor(user),
      { recovery_codes_left: left },
    );
    return { kind: 'recovery_code', left };
  }
  return useTotp(s, user, code, false);
}

/**
 * A TOTP code's use, under the user's TOTP claim (platform/claims.ts): the secrets and the last
 * used step are read afresh and the matched step is recorded before the next use is checked,
 * so a code passes once however many requests carry it. A conditional write alone did not do
 * it on FerretDB 1.24, which applies it as a read and a separate write. `pendingOnly` (enable)
 * checks the pending secret alone, so two enables at once enroll it once.
 */
async function useTotp(s: Engines, user: UserDoc, code: string, pendingOnly: boolean): Promise<SecondFactor | null> {
  return exclusively('user-totp', user.id, async () => {
    const fresh = await User.findById(user._id);
    const sealed = pendingOnly ? fresh?.mfa_pending_secret_encrypted : (fresh?.mfa_secret_encrypted ?? fresh?.mfa_pending_secret_encrypted);
    if (!fresh || !sealed) return null;
    const step = await checkTotp(decryptSecret(s.config, sealed), code, pendingOnly ? null : (fresh.mfa_last_step ?? null));
    if (step === null) return null;
    if (pendingOnly || !fresh.mfa_secret_encrypted) return { kind: 'totp', recoveryCodes: await completeEnrollment(fresh, sealed, step) };
    // Only a later step is accepted next time.
    await User.updateOne({ _id: fresh._id }, { $set: { mfa_last_step: step } });
    return { kind: 'totp' };
  });
}

/** Wrong proofs at MFA setup, per user: a stolen token gets a few guesses, not one a second. */
const PROOF_FAILURES = { points: 5, duration: 900 };

/**
 * MFA setup for a signed-in user: a new secret awaiting its first code. Replacing an
 * enrolled secret first takes a current code (TOTP or recovery) or the password.
 */
export function mfaSetup(s: Engines) {
  const limiterOptions = { ...PROOF_FAILURES, keyPrefix: redisKey(s.config, 'rl', 'mfa-proof') };
  const proofFailures = new RateLimiterRedis({
    ...limiterOptions,
    storeClient: s.redis,
    insuranceLimiter: new RateLimiterMemory(limiterOptions),
  });

  async function proveMfaOwner(user: UserDoc, proof: z.infer<typeof mfaSetupBody>) {
    const key = user.id;
    const spent = await proofFailures.get(key);
    if (spent && spent.consumedPoints >= PROOF_FAILURES.points) {
      throw new AppError('rate_limited', 'Too many wrong codes or passwords; try again later', {
        ...retryAfter(spent.msBeforeNext),
      });
    }
    if (!proof?.code && !proof?.password)
      throw identityErrors.mfa_proof_required('MFA is enrolled: send a current code or your password to replace it');
    const ok = proof.password
      ? await verifyPassword(proof.password, user.password_hash)
      : (await passSecondFactor(s, user, proof.code!)) !== null;
    if (!ok) {
      await proofFailures.penalty(key);
      throw identityErrors.mfa_proof_wrong('Wrong code or password');
    }
  }

  return async (user: UserDoc, proof: z.infer<typeof mfaSetupBody>) => {
    if (user.mfa_secret_encrypted) await proveMfaOwner(user, proof);
    return startEnrollment(s, user);
  };
}

/** Enables MFA with the first code of the pending secret; answers new recovery codes. */
export async function enableMfa(s: Engines, user: UserDoc, body: z.infer<typeof mfaEnableBody>) {
  if (!user.mfa_pending_secret_encrypted) throw badRequest('code: call POST /auth/mfa/setup first');
  const passed = await useTotp(s, user, body.code, true);
  if (!passed || passed.kind !== 'totp' || !passed.recoveryCodes) throw badRequest('code: invalid');
  return { mfa_enabled: true as const, recovery_codes: passed.recoveryCodes };
}
