/**
 * The messages the service sends. Each is a plain-text and an HTML part built from the same
 * paragraphs: templates write text only, and the HTML part escapes all of it, so a name or
 * title with markup is shown, never interpreted. Links come from PUBLIC_BASE_URL (the front
 * end): /invite/<token>, /reset-password/<token> and /approvals/<id>/<token>. Features lay
 * out their own messages with `compose` (the signature mail: services/signatures/signature-messages.ts).
 */
export interface MailAttachment {
  filename: string;
  content: string;
  contentType: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  attachments?: MailAttachment[];
}

export interface Layout {
  subject: string;
  paragraphs: string[];
  /** Shown as a quoted block after the paragraphs (e.g. the requester's message). */
  quote?: { label: string; text: string } | null;
  action: { label: string; url: string };
  /** Small print after the link. */
  after?: string[];
  attachments?: MailAttachment[];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
const htmlText = (s: string) => escapeHtml(s).replace(/\r?\n/g, '<br>');

/**
 * Headers hold one line. Subjects carry no text a user typed (names, titles, messages), only
 * the service's own words: a subject is what a phisher would write the bait in, and a
 * recipient reads it before anything else. (The renewal notice names the contract: it goes
 * to the organization's own member.)
 */
const oneLine = (s: string, max = 200) => s.replace(/\s+/g, ' ').trim().slice(0, max);

export const formatTime = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function compose(l: Layout): RenderedMail {
  const text = [
    ...l.paragraphs,
    ...(l.quote
      ? [
          `${l.quote.label}:\n${l.quote.text
            .split(/\r?\n/)
            .map((line) => `> ${line}`)
            .join('\n')}`,
        ]
      : []),
    `${l.action.label}:\n${l.action.url}`,
    ...(l.after ?? []),
  ].join('\n\n');
  const p = (s: string, style = '') => `<p${style ? ` style="${style}"` : ''}>${htmlText(s)}</p>`;
  const html = [
    '<!DOCTYPE html><html><head><meta charset="utf-8"></head>',
    '<body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#222;max-width:600px">',
    ...l.paragraphs.map((s) => p(s)),
    ...(l.quote
      ? [
          p(`${l.quote.label}:`),
          `<blockquote style="border-left:3px solid #ccc;margin:0 0 1em;padding-left:12px">${htmlText(l.quote.text)}</blockquote>`,
        ]
      : []),
    `<p><a href="${escapeHtml(l.action.url)}" style="display:inline-block;padding:10px 18px;background:#1a56db;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(l.action.label)}</a></p>`,
    p(`Or open this link: ${l.action.url}`, 'font-size:12px;color:#666'),
    ...(l.after ?? []).map((s) => p(s, 'font-size:12px;color:#666')),
    '</body></html>',
  ].join('\n');
  return { subject: oneLine(l.subject), text, html, ...(l.attachments?.length ? { attachments: l.attachments } : {}) };
}

export const link = (base: string, ...parts: string[]) => `${base}/${parts.map(encodeURIComponent).join('/')}`;

export function invitationMail(
  base: string,
  v: { inviterName: string; organizationName: string; role: string; token: string; expiresAt: Date },
): RenderedMail {
  return compose({
    subject: 'Invitation to join a team',
    paragraphs: [
      `${v.inviterName} invited you to join ${v.organizationName} as ${v.role}.`,
      `The invitation is valid until ${formatTime(v.expiresAt)}. Register with this address to accept it.`,
    ],
    action: { label: 'Accept the invitation', url: link(base, 'invite', v.token) },
    after: ['If you did not expect this invitation, ignore this message.'],
  });
}

export function renewalDueMail(
  base: string,
  v: { contractId: string; title: string; counterparty: string; deadline: string; daysLeft: number; endDate: string | null },
): RenderedMail {
  return compose({
    subject: `Renewal notice due in ${v.daysLeft} day${v.daysLeft === 1 ? '' : 's'}: ${v.title}`,
    paragraphs: [
      `"${v.title}" with ${v.counterparty} renews automatically${v.endDate ? ` at its end on ${v.endDate}` : ''}.`,
      `To stop the renewal, give notice of non-renewal by ${v.deadline} (in ${v.daysLeft} day${v.daysLeft === 1 ? '' : 's'}).`,
    ],
    action: { label: 'Open the contract', url: link(base, 'contracts', v.contractId) },
  });
}

export function passwordResetMail(base: string, v: { email: string; token: string; expiresAt: Date }): RenderedMail {
  return compose({
    subject: 'Reset your password',
    paragraphs: [
      `Someone asked to reset the password of ${v.email}.`,
      `Choose a new password with the link below before ${formatTime(v.expiresAt)}. It works once; your current sessions end when the password changes.`,
    ],
    action: { label: 'Choose a new password', url: link(base, 'reset-password', v.token) },
    after: ['If you did not ask for this, ignore this message: your password stays as it is.'],
  });
}

export function emailVerificationMail(base: string, v: { email: string; token: string; expiresAt: Date }): RenderedMail {
  return compose({
    subject: 'Verify your email address',
    paragraphs: [
      `Someone registered ${v.email} with the contract service.`,
      `Confirm that the address is yours with the link below before ${formatTime(v.expiresAt)}. Until an owner has, the organization sends no signing requests or invitations.`,
    ],
    action: { label: 'Verify the address', url: link(base, 'verify-email', v.token) },
    after: ['If you did not register, ignore this message.'],
  });
}

export function ssoLinkMail(base: string, v: { email: string; token: string; expiresAt: Date }): RenderedMail {
  return compose({
    subject: 'Confirm signing in with your identity provider',
    paragraphs: [
      `Someone signed in through your organization's identity provider with the address ${v.email}, which already has an account here.`,
      `If that was you, confirm with the link below before ${formatTime(v.expiresAt)} to sign in that way from now on. It works once.`,
    ],
    action: { label: 'Confirm single sign-on', url: link(base, 'sso-link', v.token) },
    after: ['If it was not you, ignore this message: nothing changes, and tell your administrator.'],
  });
}

/** An approver's mail: a request when their step becomes active, a reminder, or an escalation to a manager role. */
export function approvalMail(
  base: string,
  v: {
    kind: 'request' | 'reminder' | 'escalation';
    approvalId: string;
    /** The approver's personal link token (services/approvals/approval-link.ts), and how many days it works. */
    token: string;
    linkDays: number;
    title: string;
    counterparty: string;
    step: number;
    version: number;
    requester: string;
    reasons: string[];
  },
): RenderedMail {
  const lead = {
    request: `${v.requester} asks for your approval of "${v.title}" with ${v.counterparty} (version ${v.version}, step ${v.step}).`,
    reminder: `Reminder: "${v.title}" with ${v.counterparty} still waits for your approval (version ${v.version}, step ${v.step}).`,
    escalation: `Step ${v.step} of the approval of "${v.title}" with ${v.counterparty} has waited too long and was escalated to you; you may now approve or reject it.`,
  }[v.kind];
  return compose({
    subject: `${v.kind === 'reminder' ? 'Reminder: ' : v.kind === 'escalation' ? 'Escalated: ' : ''}approval requested for ${v.title}`,
    paragraphs: [lead, ...(v.reasons.length ? [`Why: ${v.reasons.join('; ')}.`] : [])],
    action: { label: 'Review and decide', url: link(base, 'approvals', v.approvalId, v.token) },
    after: [
      `This link is yours alone and works for ${v.linkDays} days: whoever opens it can decide in your name, so do not forward this message.`,
    ],
  });
}
