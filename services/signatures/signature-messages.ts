/**
 * The messages about signature requests, laid out like every message of the service
 * (services/mail/messages.ts): the signer's request and reminder, and the requester's notices.
 */
import { compose, formatTime, link, type RenderedMail } from '../mail/messages';

export interface SignerMailValues {
  requesterName: string;
  contractTitle: string;
  message: string | null;
  expiresAt: Date;
  token: string;
  signerName: string;
  /** Signers who signed before this one (ordered requests). */
  signedBefore: number;
}

export function signatureRequestMail(base: string, v: SignerMailValues): RenderedMail {
  return compose({
    subject: 'A document awaits your signature',
    paragraphs: [
      `Hello ${v.signerName},`,
      `${v.requesterName} asks you to sign "${v.contractTitle}".`,
      ...(v.signedBefore
        ? [`${v.signedBefore} signer${v.signedBefore === 1 ? ' has' : 's have'} signed before you; it is now your turn.`]
        : []),
      `The request expires ${formatTime(v.expiresAt)}.`,
    ],
    quote: v.message ? { label: `Message from ${v.requesterName}`, text: v.message } : null,
    action: { label: 'Review and sign', url: link(base, 'sign', v.token) },
    after: ['The link is yours alone: anyone who has it can sign in your name. Do not forward this message.'],
  });
}

export function signatureReminderMail(base: string, v: SignerMailValues): RenderedMail {
  return compose({
    subject: 'Reminder: a document awaits your signature',
    paragraphs: [
      `Hello ${v.signerName},`,
      `${v.requesterName} is still waiting for your signature on "${v.contractTitle}".`,
      `The request expires ${formatTime(v.expiresAt)}.`,
    ],
    action: { label: 'Review and sign', url: link(base, 'sign', v.token) },
    after: ['The link is yours alone: anyone who has it can sign in your name. Do not forward this message.'],
  });
}

interface RequestValues {
  signatureId: string;
  contractTitle: string;
}

export function signatureDeclinedMail(
  base: string,
  v: RequestValues & { signerName: string; signerEmail: string; reason: string | null },
): RenderedMail {
  return compose({
    subject: 'A signer declined your signature request',
    paragraphs: [
      `${v.signerName} (${v.signerEmail}) declined to sign "${v.contractTitle}". The request is closed; nobody else can sign it.`,
    ],
    quote: v.reason ? { label: 'Their reason', text: v.reason } : null,
    action: { label: 'Open the request', url: link(base, 'signatures', v.signatureId) },
  });
}

export function signatureExpiredMail(base: string, v: RequestValues & { expiresAt: Date; signed: number; total: number }): RenderedMail {
  return compose({
    subject: 'Your signature request expired',
    paragraphs: [
      `The request to sign "${v.contractTitle}" expired at ${formatTime(v.expiresAt)} with ${v.signed} of ${v.total} signatures.`,
      'Send a new request to collect the missing signatures.',
    ],
    action: { label: 'Open the request', url: link(base, 'signatures', v.signatureId) },
  });
}

export function signatureCompletedMail(
  base: string,
  /** `copyToken`: a signer's time-limited link to the sealed PDF (services/signatures/signed-copy-link.ts); none for the requester. */
  v: RequestValues & {
    signers: Array<{ name: string; signedAt: Date }>;
    completedAt: Date;
    certificate: string;
    copyToken: string | null;
    copyDays: number;
  },
): RenderedMail {
  return compose({
    subject: 'Signed by everyone',
    paragraphs: [
      `Every signer has signed "${v.contractTitle}" (completed ${formatTime(v.completedAt)}):`,
      v.signers.map((x) => `- ${x.name}, ${formatTime(x.signedAt)}`).join('\n'),
      ...(v.copyToken
        ? [
            `Download the signed PDF, sealed by the service with the signatures and the audit trail, within ${v.copyDays} days with the link below.`,
          ]
        : []),
      `The attached certificate.json is the service's signed statement of who signed which document when; check it offline against the service's public key, ${base}/api/v1/signatures/public-key.`,
    ],
    action: v.copyToken
      ? { label: 'Download the signed PDF', url: link(base, 'sign', v.copyToken) }
      : { label: 'Open the request', url: link(base, 'signatures', v.signatureId) },
    attachments: [{ filename: 'certificate.json', content: v.certificate, contentType: 'application/json' }],
  });
}
