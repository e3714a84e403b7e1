/** The identity audit log (`/audit-log`, admins and up): JSON, CSV or JSON Lines, and its chain's verification. */
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import { AUDIT_CATEGORIES } from '../../models/identity-audit';
import { auditCsv, auditJsonLines, auditQuery, listAudit, verifyAudit } from '../../services/audit/read-audit';
import { authorize, principalOf } from '../http/middleware/auth';
import { operation, timestamp } from '../http/openapi';

const tag = 'Audit log';
const row = z.object({
  seq: z.number().int(),
  time: timestamp,
  category: z.enum(AUDIT_CATEGORIES),
  actor: z.object({ type: z.string().nullable(), id: z.string().nullable(), name: z.string().nullable() }),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  result: z.enum(['success', 'failure']),
  status: z.number().int(),
  hash: z.string(),
});
operation({
  path: '/audit-log',
  method: 'get',
  tag,
  query: auditQuery,
  summary: 'The identity audit log: sign-ins, members, API keys, settings, SCIM, exports (admins and up); reading it is logged',
  description:
    'JSON by default; CSV with `format=csv` or `Accept: text/csv`, JSON Lines with `format=jsonl` or `Accept: application/x-ndjson`.',
  responses: {
    200: {
      description: 'Rows, oldest first',
      content: {
        'application/json': z.object({ rows: z.array(row), total: z.number().int() }),
        'text/csv': z.string(),
        'application/x-ndjson': z.string(),
      },
    },
  },
});
operation({
  path: '/audit-log/verify',
  method: 'get',
  tag,
  summary: "Recomputes the log's hash chain: the first row that does not hold, if any",
  responses: {
    200: {
      description: 'The result',
      schema: z.object({ ok: z.boolean(), rows: z.number().int(), broken_at_seq: z.number().int().nullable() }),
    },
  },
});

function formatOf(req: Request, asked?: 'json' | 'csv' | 'jsonl'): 'json' | 'csv' | 'jsonl' {
  if (asked) return asked;
  const accepted = req.accepts(['application/json', 'text/csv', 'application/x-ndjson', 'application/jsonl']);
  return accepted === 'text/csv' ? 'csv' : accepted === 'application/x-ndjson' || accepted === 'application/jsonl' ? 'jsonl' : 'json';
}

export function auditLogRouter(_s: Engines): Router {
  const router = Router();
  const admin = authorize('settings:manage');
  router.get('/', admin, async (req, res) => {
    const q = auditQuery.parse(req.query);
    const rows = await listAudit(principalOf(req), q);
    const format = formatOf(req, q.format);
    if (format === 'csv') res.type('text/csv; charset=utf-8').send(auditCsv(rows));
    else if (format === 'jsonl') res.type('application/x-ndjson; charset=utf-8').send(auditJsonLines(rows));
    else res.json({ rows, total: rows.length });
  });
  router.get('/verify', admin, async (req, res) => {
    res.json(await verifyAudit(principalOf(req)));
  });
  return router;
}
