/**
 * A redline as a page a person reads: insertions underlined, deletions struck. Every piece of
 * contract text is escaped, so script in a contract is shown, never run; the route adds a
 * Content-Security-Policy that allows no script either.
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from '../mail/messages';
import type { VersionDiff } from './diff-contract-versions';
import type { WordPart } from './redline';

const part = (p: WordPart) =>
  p.op === 'insert' ? `<ins>${escapeHtml(p.text)}</ins>` : p.op === 'delete' ? `<del>${escapeHtml(p.text)}</del>` : escapeHtml(p.text);

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#111}' +
  'ins{text-decoration:underline;background:#e6ffec;color:#055d20}del{text-decoration:line-through;background:#ffebe9;color:#82071e}' +
  'p.insert{background:#e6ffec}p.delete{background:#ffebe9}ul.clauses{background:#f6f8fa;padding:1rem 2rem}';

/** The page's policy: no script at all, and only its own stylesheet (by hash). */
export const REDLINE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; frame-ancestors 'none'`;

/** The redline's paragraphs, each a `<p>` (also the approval page's, api/views/approval-page.ts). */
export const redlineParagraphs = (d: Pick<VersionDiff, 'paragraphs'>): string =>
  d.paragraphs
    .map((p) => {
      if (p.op === 'equal') return `<p>${escapeHtml(p.text)}</p>`;
      if (p.op === 'insert') return `<p class="insert"><ins>${escapeHtml(p.text)}</ins></p>`;
      if (p.op === 'delete') return `<p class="delete"><del>${escapeHtml(p.text)}</del></p>`;
      return `<p class="change">${p.parts.map(part).join('')}</p>`;
    })
    .join('\n');

export function renderRedlineHtml(title: string, d: VersionDiff): string {
  const body = redlineParagraphs(d);
  const clauses = d.clauses?.length
    ? `<h2>Key terms changed</h2><ul class="clauses">${d.clauses.map((c) => `<li>${escapeHtml(c.summary)}</li>`).join('')}</ul>`
    : '';
  const heading = `${escapeHtml(title)}: version ${d.from.number} → ${d.to.number}`;
  const cut = [d.from, d.to].filter((v) => v.text_truncated).map((v) => v.number);
  const truncated = cut.length
    ? `<p>The text of version ${cut.join(' and ')} is long and was cut: only its beginning is compared.</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${heading}</title><style>${STYLE}</style></head>
<body><h1>${heading}</h1>
<p>${d.stats.inserted_words} words inserted, ${d.stats.deleted_words} deleted, ${d.stats.changed_paragraphs} paragraphs edited.</p>
${truncated}${clauses}
<article>
${body}
</article></body></html>
`;
}
