/**
 * MFA recovery codes: shown once when MFA is enabled, kept hashed, each accepted once at
 * MFA verification in place of a TOTP code.
 */
import { randomBytes } from 'node:crypto';
import type { Types } from 'mongoose';
import { sha256Hex } from '../../platform/security/crypto';
import { MfaRecoveryCode } from '../../models/mfa-recovery-code';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** 16 base32 characters (80 bits) in groups of four: `abcd-efgh-2345-mnop`. */
function newRecoveryCode(): string {
  const chars = [...randomBytes(16)].map((b) => ALPHABET[b & 31]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** Case, spaces and dashes do not matter; anything else cannot be a recovery code. */
function normalized(code: string): string | null {
  const plain = code.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z2-7]{16}$/.test(plain) ? plain : null;
}

interface Owner {
  _id: Types.ObjectId;
  organization_id: Types.ObjectId;
}

/** New codes for the user, replacing any earlier ones; returns them in clear, to show once. */
export async function issueRecoveryCodes(user: Owner): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await MfaRecoveryCode.deleteMany({ user_id: user._id });
  await MfaRecoveryCode.insertMany(
    codes.map((c) => ({ organization_id: user.organization_id, user_id: user._id, code_hash: sha256Hex(normalized(c)!) })),
  );
  return codes;
}

/** Spends a code: the number of codes left, or null when it is not one of the user's unspent codes. */
export async function spendRecoveryCode(user: Owner, code: string): Promise<number | null> {
  const plain = normalized(code);
  if (!plain) return null;
  const { deletedCount } = await MfaRecoveryCode.deleteOne({ user_id: user._id, code_hash: sha256Hex(plain) });
  if (deletedCount !== 1) return null;
  return MfaRecoveryCode.countDocuments({ user_id: user._id });
}

export const dropRecoveryCodes = (userId: Types.ObjectId) => MfaRecoveryCode.deleteMany({ user_id: userId });
