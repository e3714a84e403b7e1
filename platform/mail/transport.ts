/**
 * SMTP through nodemailer: one pooled transport per worker process, and the rule that
 * sorts a refusal into "try again later" and "give up now".
 */
import { createTransport } from 'nodemailer';
import type { Config } from '../config';

/**
 * Each SMTP step gives up well within the send activity's 1-minute attempt (workflows/
 * mail-delivery.ts), so an attempt that Temporal has written off is no longer talking to
 * the server when the next one starts: at most one send per attempt window.
 */
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };

export function createMailTransport(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>) {
  return createTransport(
    { url: config.SMTP_URL, pool: true, maxConnections: 5, maxMessages: 100, ...TIMEOUTS },
    { from: config.MAIL_FROM },
  );
}
export type MailTransport = ReturnType<typeof createMailTransport>;

export interface SmtpRefusal {
  /** 5xx: the server will not take this message (unknown mailbox, policy); retrying cannot help. */
  permanent: boolean;
  reason: string;
}

/**
 * A 5xx reply is permanent; a 4xx reply (greylisting, mailbox busy, rate limits) and every
 * failure without a reply (connection refused, timeouts, DNS, TLS) is transient.
 */
export function classifySmtpError(err: unknown): SmtpRefusal {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  const reason = (e.response ?? e.message ?? String(err)).replace(/\s+/g, ' ').trim().slice(0, 500);
  return {
    permanent: code !== null && code >= 500 && code < 600,
    reason: code !== null && !reason.startsWith(String(code)) ? `${code} ${reason}` : reason,
  };
}
