/** The OpenAPI description of the identity audit log and its exports (api/routes/audit-log.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { AUDIT_CATEGORIES } from '../../models/identity-audit';
import { AUDIT_EXPORT_FORMATS, AUDIT_EXPORT_STATUSES } from '../../models/audit-export';
import { auditQuery } from '../../services/audit/read-audit';
import { auditExportBody } from '../../services/audit/export-audit';
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

const exportSchema = z.object({
  id: idSchema,
  status: z.enum(AUDIT_EXPORT_STATUSES),
  from: timestamp.nullable(),
  to: timestamp.nullable(),
  category: z.enum(AUDIT_CATEGORIES).nullable(),
  format: z.enum(AUDIT_EXPORT_FORMATS),
  rows: z.number().int().nullable(),
  bytes: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: timestamp,
  completed_at: timestamp.nullable(),
});
operation({
  path: '/audit-log/exports',
  method: 'post',
  tag,
  body: auditExportBody,
  summary: 'Export the log (any number of rows) to a CSV or JSON Lines file, as a job',
  description:
    'Answers 202 at once; the workflow `audit-export-<id>` writes the file. Poll `GET /audit-log/exports/{id}` until `status` is `done`, then download it. Starting, polling and downloading are logged (category `exports`).',
  responses: {
    202: { description: 'The export, running', schema: exportSchema },
    503: 'The workflow engine is unavailable; no export was started',
  },
});
operation({
  path: '/audit-log/exports/{id}',
  method: 'get',
  tag,
  summary: 'The status of an export: running, done (with rows and bytes) or failed (with error)',
  responses: { 200: { description: 'The export', schema: exportSchema } },
});
operation({
  path: '/audit-log/exports/{id}/download',
  method: 'get',
  tag,
  summary: "An export's file, once done",
  responses: {
    200: { description: 'CSV or JSON Lines', schema: z.string(), contentType: 'text/csv' },
    409: 'The export is still running, or failed (`audit_export_not_ready`)',
  },
});
