/**
 * An approver's personal link in approval mail: `/approvals/<request id>/<user id>.<until>.<mac>`.
 * Nothing is stored: the MAC (HMAC-SHA256 under a key derived from ENCRYPTION_KEY) binds the
 * request, the approver, the version's SHA-256, the approver's session epoch (a password reset
 * ends their links) and the deadline (APPROVAL_LINK_DAYS). Whether the request is still open
 * is read from the store each time (./open-approval-link.ts).
 */
import type { Config } from '../../platform/config';
import { derivedSecret, safeEqual } from '../../platform/security/crypto';

type LinkConfig = Pick<Config, 'ENCRYPTION_KEY' | 'APPROVAL_LINK_DAYS'>;

/** What a link is bound to. */
export interface ApprovalLinkSubject {
  approvalId: string;
  userId: string;
  versionSha256: string;
  sessionEpoch: number;
}

const mac = (config: Pick<Config, 'ENCRYPTION_KEY'>, s: ApprovalLinkSubject, until: string) =>
  derivedSecret(config, 'approval-link', `${s.approvalId}.${s.userId}.${s.versionSha256}.${s.sessionEpoch}.${until}`);

export function approvalLinkToken(config: LinkConfig, subject: ApprovalLinkSubject, from = new Date()): string {
  const until = (Math.floor(from.getTime() / 1000) + config.APPROVAL_LINK_DAYS * 86400).toString(36);
  return `${subject.userId}.${until}.${mac(config, subject, until)}`;
}

/** A token's shape: the approver's id, the deadline (base 36 seconds), the MAC. */
export const APPROVAL_TOKEN = /^([0-9a-f]{24})\.[0-9a-z]{1,10}\.[A-Za-z0-9]{43}$/;

/** The approver a token names, before its MAC is checked (null when it has not the shape of one). */
export function approverOfToken(token: string): string | null {
  return APPROVAL_TOKEN.exec(token)?.[1] ?? null;
}

/** 'valid' for a genuine, unexpired token of this subject; 'expired' for a genuine one past its deadline; else 'invalid'. */
export function checkApprovalLink(config: Pick<Config, 'ENCRYPTION_KEY'>, subject: ApprovalLinkSubject, token: string, now = new Date()) {
  const [userId, until, given] = token.split('.');
  if (userId !== subject.userId || !until || !given || !safeEqual(given, mac(config, subject, until))) return 'invalid' as const;
  return parseInt(until, 36) * 1000 <= now.getTime() ? ('expired' as const) : ('valid' as const);
}
