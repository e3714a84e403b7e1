/**
 * The approval page's HTML, rendered on the server like the signing page (same layout and
 * stylesheet, no script, every user value escaped): what the approver reviews (the
 * contract's facts, key terms beside the standard, the redline), the decision form, and a
 * page for each state in which the link cannot decide.
 */
import { escapeHtml, formatTime } from '../../services/mail/messages';
import { redlineParagraphs } from '../../services/contracts/redline-html';
import type { ApprovalLinkState, ApprovalReview } from '../../services/approvals/open-approval-link';
import { MFA_ENROL } from '../../services/approvals/submit-approval-form';
import { dayOf } from '../../platform/dates';
import { layout } from './signing-page';

const e = escapeHtml;
const words = (s: string) => s.replace(/_/g, ' ');

export const approvalPagePath = (approvalId: string, token: string) =>
  `/approvals/${encodeURIComponent(approvalId)}/${encodeURIComponent(token)}`;

export interface ApprovalFormValues {
  path: string;
  csrf: string;
  review: ApprovalReview;
  /** What the approver typed, shown again with the errors after a refused post; errors keyed by form field. */
  typed?: { comment?: string };
  errors?: { decision?: string; comment?: string; code?: string };
}

function header(requester: string, title: string, version: number, step: number): string {
  return `<header>
<p class="from">${e(requester)} asks for your approval</p>
<h1>${e(title)}</h1>
<p class="muted">Version ${version}, step ${step}</p>
</header>`;
}

function facts(r: ApprovalReview): string {
  const c = r.contract;
  const row = (label: string, value: string) => `<dt>${e(label)}</dt><dd>${value}</dd>`;
  const money = c.value === null || c.value === undefined ? 'not stated' : `${c.value.toLocaleString('en-US')} ${c.currency ?? ''}`;
  return `<section aria-labelledby="facts-h">
<h2 id="facts-h">The contract</h2>
<dl class="facts">
${row('Counterparty', e(c.counterparty))}
${row('Type', e(words(c.type)))}
${row('Value', e(money.trim()))}
${row('Vendor risk', e(r.vendorRisk ?? 'not assessed'))}
${row('Start', e(c.start_date ? dayOf(c.start_date) : 'not stated'))}
${row('End', e(c.end_date ? dayOf(c.end_date) : 'not stated'))}
${row('Version', String(r.approval.version_number))}
${row('SHA-256', `<code>${e(r.approval.version_sha256)}</code>`)}
</dl>
${r.reasons.length ? `<h3>Why it needs approval</h3>\n<ul>${r.reasons.map((x) => `<li>${e(x)}</li>`).join('')}</ul>` : ''}
</section>`;
}

function terms(r: ApprovalReview): string {
  if (!r.terms.length) return '';
  const rows = r.terms
    .map(
      (t) => `<tr>
<th scope="row">${e(words(t.term))}</th>
<td class="value">${t.value ? e(t.value) : '<span class="muted">not stated</span>'}</td>
<td>${t.standards.length ? `${e(t.standards.join(' or '))}${t.differs ? ' <span class="differs">(differs)</span>' : ''}` : '<span class="muted">none set</span>'}</td>
</tr>`,
    )
    .join('\n');
  return `<section aria-labelledby="terms-h">
<h2 id="terms-h">Key terms</h2>
<table class="terms">
<thead><tr><th scope="col">Term</th><th scope="col">This contract</th><th scope="col">Your standard</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}

function changes(r: ApprovalReview): string {
  const c = r.changes;
  if (c.base === null) {
    const paragraphs = c.text
      .split(/\r?\n/)
      .filter((p) => p.trim())
      .map((p) => ({ op: 'equal' as const, a: 0, b: 0, text: p.trimEnd() }));
    return `<section aria-labelledby="changes-h">
<h2 id="changes-h">The text</h2>
<p class="muted">This is the contract's first version: there is no earlier one to compare with.</p>
<div class="redline">${redlineParagraphs({ paragraphs }) || '<p class="muted">No text.</p>'}</div>
</section>`;
  }
  const d = c.diff;
  const since = `Changes since version ${d.from.number}${c.base === 'approved' ? ', the last approved' : ', the previous one'}`;
  const clauses = d.clauses?.length
    ? `<h3>Key terms changed</h3><ul class="clauses">${d.clauses.map((x) => `<li>${e(x.summary)}</li>`).join('')}</ul>`
    : '';
  return `<section aria-labelledby="changes-h">
<h2 id="changes-h">${e(since)}</h2>
<p class="muted">${d.stats.inserted_words} words inserted (underlined), ${d.stats.deleted_words} deleted (struck through), ${d.stats.changed_paragraphs} paragraphs edited.</p>
${clauses}
<div class="redline">${redlineParagraphs(d)}</div>
</section>`;
}

/** The review and the decision form. */
export function approvalPage(v: ApprovalFormValues): string {
  const r = v.review;
  const errors = v.errors ?? {};
  const head = `${header(r.approval.requested_by_name ?? 'A colleague', r.approval.contract_title, r.approval.version_number, r.step)}
${facts(r)}
${terms(r)}
${changes(r)}`;
  const err = (id: string, text?: string) => (text ? `<p class="error" id="${id}-error" role="alert">${e(text)}</p>` : '');
  const invalid = (id: string, text?: string, hint?: string) =>
    text ? ` aria-describedby="${id}-error" aria-invalid="true"` : hint ? ` aria-describedby="${hint}"` : '';
  if (r.approver.mfa === 'enrol')
    return layout(
      `Approve: ${r.approval.contract_title}`,
      `${head}\n<section aria-labelledby="decide-h">\n<h2 id="decide-h">Your decision, ${e(r.approver.name)}</h2>\n<p>${e(MFA_ENROL)}</p>\n</section>`,
    );
  const code =
    r.approver.mfa === 'code'
      ? `<div class="field">
<label for="code">Code from your authenticator app</label>
<p class="muted" id="code-hint">You have MFA on: your decision counts only with a current code.</p>
<input type="text" class="code" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="32"${invalid('code', errors.code, 'code-hint')}>
${err('code', errors.code)}
</div>`
      : '';
  const body = `${head}
<section aria-labelledby="decide-h">
<h2 id="decide-h">Your decision, ${e(r.approver.name)}</h2>
<form method="post" action="${e(v.path)}">
<input type="hidden" name="csrf" value="${e(v.csrf)}">
${err('decision', errors.decision)}
<div class="field">
<label for="comment">Comment (needed to reject)</label>
<textarea id="comment" name="comment" maxlength="2000"${invalid('comment', errors.comment)}>${e(v.typed?.comment ?? '')}</textarea>
${err('comment', errors.comment)}
</div>
${code}
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="reject" class="decline">Reject</button>
</div>
</form>
</section>`;
  return layout(`Approve: ${r.approval.contract_title}`, body);
}

function stateText(s: ApprovalLinkState): { title: string; html: string } {
  switch (s.kind) {
    case 'superseded':
      return {
        title: 'This request was superseded',
        html: '<p>The contract changed after this request was made, so there is nothing to decide here. If the new version needs approval, you will get a new email.</p>',
      };
    case 'closed':
      return {
        title: `This request is ${s.status}`,
        html: `<p>The request is already ${e(s.status)}; there is nothing left to decide.</p>`,
      };
    case 'decided':
      return {
        title: s.decision === 'approved' ? 'You approved' : s.decision === 'rejected' ? 'You rejected' : 'You were removed',
        // `removed`: they left the organization before deciding (services/approvals/remove-leaver.ts).
        html: `<p>You ${s.decision === 'removed' ? 'were removed from' : s.decision} step ${s.step} on ${e(formatTime(s.at))}.${s.outcome === 'pending' ? '' : ` The request is now ${e(s.outcome)}.`}</p>`,
      };
    case 'waiting':
      return {
        title: 'Not your turn yet',
        html: `<p>Step ${s.active} decides first; you decide on step ${s.step}. You will get an email when it is your turn.</p>`,
      };
    case 'not_approver':
      return { title: 'Nothing for you to decide', html: '<p>You are not an approver of the step that is open now.</p>' };
  }
}

/** The page of a link that cannot decide now. */
export function approvalStatePage(title: string, version: number, s: ApprovalLinkState): string {
  const t = stateText(s);
  return layout(
    `${t.title}: ${title}`,
    `<header>\n<p class="from">Approval request</p>\n<h1>${e(title)}</h1>\n<p class="muted">Version ${version}</p>\n</header>\n<section aria-labelledby="state-h">\n<h2 id="state-h">${e(t.title)}</h2>\n${t.html}\n</section>`,
  );
}
