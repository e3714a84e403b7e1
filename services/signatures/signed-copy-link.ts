/**
 * The time-limited link in a signer's completion mail to download the sealed PDF through
 * the signing page: `/sign/<request id>.<signer id>.<until>.<mac>`. Nothing is stored: the
 * MAC (HMAC-SHA256 under a key derived from ENCRYPTION_KEY) binds the ids and the deadline;
 * a link mailed before the keys were separated is checked under the old derivation too.
 * Signing tokens have no dot, so the page tells the two apart.
 */
import type { Config } from '../../platform/config';
import { derivedSecret, derivedSecretMatches } from '../../platform/security/crypto';

type CopyConfig = Pick<Config, 'ENCRYPTION_KEY' | 'SIGNED_COPY_DAYS'>;

/**
 * When a completed request's sealed PDF stops downloading through its signers' links (copy
 * links and signing links alike): it names every signer's email and IP address, and a link
 * in a mailbox should not hand that out for ever. Members still download it through the API.
 */
export const copyWindowEnd = (config: Pick<Config, 'SIGNED_COPY_DAYS'>, completedAt: Date) =>
  new Date(completedAt.getTime() + config.SIGNED_COPY_DAYS * 86400_000);

const mac = (config: Pick<Config, 'ENCRYPTION_KEY'>, body: string) => derivedSecret(config, 'signed-copy-link', body);

export function copyToken(config: CopyConfig, signatureId: string, signerId: string, completedAt: Date): string {
  const until = Math.floor(copyWindowEnd(config, completedAt).getTime() / 1000);
  const body = `${signatureId}.${signerId}.${until.toString(36)}`;
  return `${body}.${mac(config, body)}`;
}

/** The ids and deadline of a genuine copy link, 'expired' past its deadline, null for anything else. */
export function readCopyToken(
  config: Pick<Config, 'ENCRYPTION_KEY'>,
  token: string,
): { signatureId: string; signerId: string; until: Date } | 'expired' | null {
  const m = /^([0-9a-f]{24})\.([0-9a-f]{24})\.([0-9a-z]{1,10})\.([A-Za-z0-9]{43})$/.exec(token);
  if (!m || !derivedSecretMatches(config, 'signed-copy-link', `${m[1]}.${m[2]}.${m[3]}`, m[4]!)) return null;
  const until = new Date(parseInt(m[3]!, 36) * 1000);
  return until.getTime() <= Date.now() ? 'expired' : { signatureId: m[1]!, signerId: m[2]!, until };
}
