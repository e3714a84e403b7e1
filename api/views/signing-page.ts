/**
 * The signing page's HTML, rendered on the server: no script, one same-origin stylesheet,
 * every user value escaped. A signer reads the whole document (in pages, with a page list
 * to jump by), consents, types their name and signs, or declines with a reason; every other
 * state of their link has a page of its own.
 */
import { escapeHtml, formatTime } from '../../services/mail/messages';
import type { LinkState } from '../../services/signatures/open-signing-link';
import type { SignatureRecord } from '../../models/signature';

export const STYLESHEET_PATH = '/assets/signing-page.css';

const e = escapeHtml;

/** Characters per page of the on-screen document: about a printed page. */
const PAGE_CHARS = 3000;

/** Lines of a text to show: trimmed, blank ones left out (each becomes a paragraph). */
const linesOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The document in pages of whole lines (a longer line is a page of its own). */
export function documentPages(text: string, pageChars = PAGE_CHARS): string[][] {
  const pages: string[][] = [];
  let page: string[] = [];
  let size = 0;
  for (const line of linesOf(text)) {
    if (page.length && size + line.length > pageChars) {
      pages.push(page);
      page = [];
      size = 0;
    }
    page.push(line);
    size += line.length;
  }
  if (page.length) pages.push(page);
  return pages;
}

/**
 * The frozen document as the page shows it: a PDF of record's text page by page, as its
 * pages are (a page without text stays, empty, so the numbers match the PDF), else the
 * content in pages of about PAGE_CHARS.
 */
export const signingPages = (sig: Pick<SignatureRecord, 'document' | 'document_pages' | 'record_document_id'>): string[][] =>
  sig.record_document_id ? sig.document_pages.map(linesOf) : documentPages(sig.document);

export function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${e(title)}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface RequestSummary {
  requester: string;
  title: string;
  message: string | null;
}

export const requestSummary = (sig: SignatureRecord): RequestSummary => ({
  requester: sig.requested_by_name ?? 'Your counterparty',
  title: sig.contract_title,
  message: sig.message ?? null,
});

function header(r: RequestSummary): string {
  return `<header>
<p class="from">${e(r.requester)} asks you to sign</p>
<h1>${e(r.title)}</h1>
</header>`;
}

export interface SignFormValues {
  token: string;
  csrf: string;
  request: RequestSummary;
  signerName: string;
  /** The document's pages, each a list of paragraphs (signingPages). */
  pages: string[][];
  expiresAt: Date;
  pdfUrl: string;
  /** What the signer typed, shown again with the errors after a refused post; keyed by form field. */
  typed?: { signature_text?: string; reason?: string };
  errors?: { consent?: string; signature_text?: string; reason?: string };
}

/** The document, consent, signature and decline forms. */
export function signPage(v: SignFormValues): string {
  const pages = v.pages;
  const errors = v.errors ?? {};
  const err = (id: string, text?: string) => (text ? `<p class="error" id="${id}-error" role="alert">${e(text)}</p>` : '');
  const describedBy = (id: string, text?: string) => (text ? ` aria-describedby="${id}-error" aria-invalid="true"` : '');
  const base = `/sign/${encodeURIComponent(v.token)}`;
  const documentHtml = pages
    .map(
      (paragraphs, i) => `<article class="page" id="page-${i + 1}" aria-labelledby="page-${i + 1}-h">
<h3 id="page-${i + 1}-h">Page ${i + 1} of ${pages.length}</h3>
${paragraphs.length ? paragraphs.map((p) => `<p>${e(p)}</p>`).join('\n') : '<p class="muted">This page has no text to show; see it in the PDF.</p>'}
</article>`,
    )
    .join('\n');
  const body = `${header(v.request)}
${v.request.message ? `<section aria-labelledby="message-h"><h2 id="message-h">Message from ${e(v.request.requester)}</h2><blockquote>${e(v.request.message)}</blockquote></section>` : ''}
<section aria-labelledby="document-h">
<h2 id="document-h">The document</h2>
<p class="muted">${pages.length} page${pages.length === 1 ? '' : 's'}. Please read it all before you sign. This link is valid until ${e(formatTime(v.expiresAt))}.</p>
<p><a href="${e(v.pdfUrl)}">Download the document as PDF</a></p>
${pages.length > 1 ? `<nav aria-label="Document pages"><ul class="pages">${pages.map((_, i) => `<li><a href="#page-${i + 1}">Page ${i + 1}</a></li>`).join('')}</ul></nav>` : ''}
${documentHtml || '<p>The document is the PDF above; download it and read it all before you sign.</p>'}
</section>
<section aria-labelledby="sign-h">
<h2 id="sign-h">Sign as ${e(v.signerName)}</h2>
<form method="post" action="${e(base)}">
<input type="hidden" name="csrf" value="${e(v.csrf)}">
<p class="consent" id="consent-text">By signing electronically you agree to use electronic records and an electronic signature for this document instead of paper. Your typed name is your signature and has the same effect as a handwritten one. You can download a copy of the document now, and a sealed copy with the record of every signature once everyone has signed.</p>
<div class="field check">
<input type="checkbox" id="consent" name="consent" value="yes" required aria-describedby="consent-text"${errors.consent ? ' aria-invalid="true"' : ''}>
<label for="consent">I have read the document and I agree to sign it electronically.</label>
</div>
${err('consent', errors.consent)}
<div class="field">
<label for="signature-name">Type your full name as your signature</label>
<input type="text" id="signature-name" name="signature_text" autocomplete="name" required maxlength="200" value="${e(v.typed?.signature_text ?? '')}"${describedBy('signature-name', errors.signature_text)}>
${err('signature-name', errors.signature_text)}
</div>
<button type="submit">Sign</button>
</form>
</section>
<section aria-labelledby="decline-h">
<h2 id="decline-h">Decline to sign</h2>
<details${errors.reason ? ' open' : ''}>
<summary>I do not want to sign this document</summary>
<form method="post" action="${e(base)}/decline">
<input type="hidden" name="csrf" value="${e(v.csrf)}">
<div class="field">
<label for="decline-reason">Why are you declining? ${e(v.request.requester)} will see your reason.</label>
<textarea id="decline-reason" name="reason" required maxlength="2000"${describedBy('decline-reason', errors.reason)}>${e(v.typed?.reason ?? '')}</textarea>
${err('decline-reason', errors.reason)}
</div>
<button type="submit" class="decline">Decline</button>
</form>
</details>
</section>`;
  return layout(`Sign: ${v.request.title}`, body);
}

function stateBody(r: RequestSummary, s: LinkState, pdfUrl: string): { title: string; html: string } {
  switch (s.kind) {
    case 'signed': {
      const copy = s.copyEnded
        ? `<p>The signed PDF could be downloaded here until ${e(formatTime(s.copyEnded))}. Ask ${e(r.requester)} for a copy.</p>`
        : s.sealed
          ? `<p><a href="${e(pdfUrl)}">Download the signed PDF</a></p>`
          : `<p>${s.completed ? 'The sealed PDF is being prepared; reload this page in a minute.' : 'When everyone has signed you will get an email with a link to the sealed PDF.'}</p>`;
      return {
        title: 'You signed',
        html: `<p>You signed this document on ${e(formatTime(s.at))}.${s.completed ? ' Everyone has signed.' : ''}</p>\n${copy}`,
      };
    }
    case 'declined':
      return s.byYou
        ? {
            title: 'You declined',
            html: `<p>You declined to sign${s.at ? ` on ${e(formatTime(s.at))}` : ''}. ${e(r.requester)} has been told.</p>${s.reason ? `<p>Your reason:</p><blockquote>${e(s.reason)}</blockquote>` : ''}`,
          }
        : {
            title: 'Declined',
            html: '<p>Another signer declined this document, so the request has ended and there is nothing left to sign.</p>',
          };
    case 'expired':
      return {
        title: 'This link has expired',
        html: `<p>This signing link expired on ${e(formatTime(s.at))}. Ask ${e(r.requester)} to send a new request if you still need to sign.</p>`,
      };
    case 'cancelled':
      return { title: 'Request cancelled', html: `<p>${e(r.requester)} cancelled this signature request. There is nothing to sign.</p>` };
    case 'waiting':
      return {
        title: 'Not your turn yet',
        html: `<p>This document is signed in order. ${s.before === 1 ? 'One earlier signer has' : `${s.before} earlier signers have`} not signed yet. You will get an email when it is your turn.</p>`,
      };
    case 'copy':
      return {
        title: 'Your signed copy',
        html: `<p>Everyone has signed.</p>${s.sealed ? `<p><a href="${e(pdfUrl)}">Download the signed PDF</a></p><p class="muted">This link works until ${e(formatTime(s.until))}.</p>` : '<p>The sealed PDF is being prepared; reload this page in a minute.</p>'}`,
      };
  }
}

/** The page of a link that cannot act; `pdfUrl` downloads the sealed PDF once there is one. */
export function statePage(r: RequestSummary, s: LinkState, pdfUrl: string): string {
  const { title, html } = stateBody(r, s, pdfUrl);
  return layout(
    `${title}: ${r.title}`,
    `${header(r)}\n<section aria-labelledby="state-h">\n<h2 id="state-h">${e(title)}</h2>\n${html}\n</section>`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<section aria-labelledby="state-h">\n<h1 id="state-h">${e(title)}</h1>\n<p>${e(text)}</p>\n</section>`);
}
