/**
 * What arrived at the local SMTP server (GreenMail, started by scripts/stack.sh), read
 * through its REST API and parsed like a mail client would. Addresses are unique per test,
 * so runs sharing the server never read each other's mail.
 */
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { waitFor } from './processes';

const mailApi = () => process.env.MAIL_API_URL ?? 'http://127.0.0.1:8025';

export interface ReceivedMail {
  messageId: string;
  subject: string;
  from: string;
  text: string;
  html: string;
  attachments: Array<{ filename: string; content: string }>;
}

export const uniqueAddress = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.test`;

/** Every message in the address's mailbox (none when GreenMail has not seen the address). */
export async function mailbox(address: string, api = mailApi()): Promise<ReceivedMail[]> {
  const res = await fetch(`${api}/api/user/${encodeURIComponent(address)}/messages`);
  if (res.status === 400) return []; // "User '...' not found": nothing was delivered to it yet
  if (!res.ok) throw new Error(`GreenMail answered ${res.status}: ${await res.text()}`);
  const raw = (await res.json()) as Array<{ mimeMessage: string }>;
  return Promise.all(
    raw.map(async ({ mimeMessage }) => {
      const m = await simpleParser(mimeMessage);
      return {
        messageId: m.messageId ?? '',
        subject: m.subject ?? '',
        from: m.from?.text ?? '',
        text: m.text ?? '',
        html: typeof m.html === 'string' ? m.html : '',
        attachments: m.attachments.map((a) => ({ filename: a.filename ?? '', content: a.content.toString('utf8') })),
      };
    }),
  );
}

/** Waits until the mailbox holds at least `count` messages, and returns them all. */
export async function waitForMail(address: string, count = 1, timeoutMs = 30000, api = mailApi()): Promise<ReceivedMail[]> {
  let got: ReceivedMail[] = [];
  await waitFor(async () => (got = await mailbox(address, api)).length >= count, timeoutMs, `${count} message(s) for ${address}`);
  return got;
}

/** Waits until the mailbox holds a message with `subject`, and returns the first such. */
export async function waitForSubject(address: string, subject: string, timeoutMs = 30000, api = mailApi()): Promise<ReceivedMail> {
  let found: ReceivedMail | undefined;
  await waitFor(
    async () => !!(found = (await mailbox(address, api)).find((m) => m.subject === subject)),
    timeoutMs,
    `"${subject}" for ${address}`,
  );
  return found!;
}

/** The token of the link to `page` (invite, reset-password, verify-email, sign) in a message's text part. */
export function linkToken(mail: ReceivedMail, page: 'invite' | 'reset-password' | 'verify-email' | 'sign'): string {
  const m = new RegExp(`/${page}/([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!m) throw new Error(`no /${page}/ link in "${mail.subject}"`);
  return m[1]!;
}

/** The path of the approver's personal link (`/approvals/<id>/<token>`) in an approval mail's text part. */
export function approvalLinkPath(mail: ReceivedMail): string {
  const m = /\/approvals\/[0-9a-f]{24}\/[0-9a-f]{24}\.[0-9a-z]+\.[A-Za-z0-9]{43}/.exec(mail.text);
  if (!m) throw new Error(`no /approvals/ link in "${mail.subject}"`);
  return m[0];
}
