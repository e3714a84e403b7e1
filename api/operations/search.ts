/** The OpenAPI description of repository search (api/routes/search.ts serves it). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { searchParams, FACETS } from '../../services/search/contract-search-query';
import { CSV_COLUMNS } from '../../services/search/search-contracts';
import { SNIPPET_CHARS } from '../../services/search/contract-search-docs';
import { operation, registry } from '../http/openapi';
import { contractSchema } from './contracts';

const tag = 'Search';

const highlight = registry.register(
  'SearchHighlight',
  z.object({
    field: z
      .string()
      .meta({ description: '`title`, `counterparty`, `content`, or `document` (a page of a ready document of the contract)' }),
    document_id: idSchema.optional(),
    page: z.number().int().optional(),
    fragment: z.string().meta({
      description:
        "HTML: the contract's text around the matches, HTML-encoded (`<`, `>`, `&`, quotes and `/` as entities), with `<em>…</em>` around matched words as the only markup. Insert it as HTML, never as text into a template that does not escape.",
    }),
  }),
);

const hit = contractSchema.omit({ content: true }).extend({
  snippet: z.string().meta({
    description: `Plain text: the first ${SNIPPET_CHARS} or so characters of the contract's text (white space collapsed, "…" when cut). The full text is \`content\` of \`GET /contracts/{id}\`.`,
  }),
  terms: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: 'The key terms (as `GET /contracts/{id}/terms` gives them), or null before any extraction' }),
  highlights: z.array(highlight),
});

operation({
  path: '/search/contracts',
  method: 'get',
  tag,
  summary: "Search the organization's contracts: words, filters, facets, sorts, pages or a cursor, CSV export",
  description: [
    "`q` is words, never query syntax: `*:*` or `field:value` are searched as text. It matches the title, counterparty, content and the pages of the contract's ready documents; highlights cite the document and page.",
    'Hits carry no `content`: a `snippet` (plain text) and `highlights` (HTML fragments, see SearchHighlight) instead. The full text is behind `GET /contracts/{id}`.',
    'Repeated parameters are OR within a field, different fields AND. Unknown parameters, values, facets or sorts, a range whose end comes before its start, `page_size` over 100, `q` over 1000 characters and a cursor of another sort answer 400.',
    `Facets (\`facets=\`${FACETS.join(',')}) count the matches exactly; \`renewal_window\` buckets the opt-out deadline from today (UTC): overdue, 30 (0–30 days), 60 (30–60), 90 (60–90), later. \`counterparty\` lists the 20 most frequent.`,
    'Sorts break ties by id, so pages never repeat or skip. `page` reaches the first 100,000 hits; `next_cursor` (opaque) goes further and is stable while contracts change.',
    `\`format=csv\` streams every match (no paging) with the columns ${CSV_COLUMNS.join(', ')}.`,
    'A contract created or changed through the API is found by the next request.',
  ].join('\n\n'),
  query: searchParams,
  responses: {
    200: {
      description: 'A page of matches, or every match as CSV',
      content: {
        'application/json': z.object({
          data: z.array(hit),
          total: z.number().int(),
          page: z.number().int().nullable(),
          page_size: z.number().int(),
          next_cursor: z.string().nullable(),
          facets: z.record(z.string(), z.array(z.object({ value: z.string(), count: z.number().int() }))),
        }),
        'text/csv': z.string(),
      },
    },
    503: 'The search engine is unavailable',
  },
});

operation({
  path: '/admin/search/reindex',
  method: 'post',
  tag,
  summary: "Rebuild the organization's search documents from the store (owner only)",
  description:
    'A durable workflow rewrites every contract of the organization, then removes documents of contracts no longer stored. Search keeps answering meanwhile. One runs per organization at a time, and another may start only SEARCH_REINDEX_COOLDOWN_SECONDS after it ended.',
  responses: {
    202: { description: 'The reindex workflow started', schema: z.object({ workflow_id: z.string() }) },
    409: 'A reindex of the organization is running, or ended less than SEARCH_REINDEX_COOLDOWN_SECONDS ago: `detail` names its workflow, `Retry-After` says when another may start',
    503: 'The workflow engine is unavailable',
  },
});
