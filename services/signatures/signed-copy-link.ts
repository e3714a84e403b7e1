/**
 * The time-limited link in a signer's completion mail to download the sealed PDF through
 * the signing page: `/sign/<request id>.<signer id>.<until>.<mac>`. Nothing is stored: the
 * MAC (HMAC-SHA256 under a key derived from ENCRYPTION_KEY) binds the ids and the deadline.
 * Signing tokens have no dot, so the page tells the two apart.
 */
import type { Config } from '../../platform/config';
import { derivedSecret, safeEqual } from '../../platform/security/crypto';

/** How long a completion mail's download link works. */
export const COPY_LINK_DAYS = 30;

const mac = (config: Pick<Config, 'ENCRYPTION_KEY'>, body: string) => derivedSecret(config, 'signed-copy-link', body);

export function copyToken(config: Pick<Config, 'ENCRYPTION_KEY'>, signatureId: string, signerId: string, from: Date): string {
  const until = Math.floor(from.getTime() / 1000) + COPY_LINK_DAYS * 86400;
  const body = `${signatureId}.${signerId}.${until.toString(36)}`;
  return `${body}.${mac(config, body)}`;
}

/** The ids and deadline of a genuine copy link, 'expired' past its deadline, null for anything else. */
export function readCopyToken(
  config: Pick<Config, 'ENCRYPTION_KEY'>,
  token: string,
): { signatureId: string; signerId: string; until: Date } | 'expired' | null {
  const m = /^([0-9a-f]{24})\.([0-9a-f]{24})\.([0-9a-z]{1,10})\.([A-Za-z0-9]{43})$/.exec(token);
  if (!m || !safeEqual(m[4]!, mac(config, `${m[1]}.${m[2]}.${m[3]}`))) return null;
  const until = new Date(parseInt(m[3]!, 36) * 1000);
  return until.getTime() <= Date.now() ? 'expired' : { signatureId: m[1]!, signerId: m[2]!, until };
}
