/** The identity audit log (`/audit-log`, admins and up): JSON, CSV or JSON Lines, and its chain's verification. */
import { Router, type Request } from 'express';
import type { Engines } from '../../platform/engines';
import { auditCsv, auditJsonLines, auditQuery, listAudit, verifyAudit } from '../../services/audit/read-audit';
import { auditExportBody, getAuditExport, openAuditExport, startAuditExport } from '../../services/audit/export-audit';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/audit-log';

function formatOf(req: Request, asked?: 'json' | 'csv' | 'jsonl'): 'json' | 'csv' | 'jsonl' {
  if (asked) return asked;
  const accepted = req.accepts(['application/json', 'text/csv', 'application/x-ndjson', 'application/jsonl']);
  return accepted === 'text/csv' ? 'csv' : accepted === 'application/x-ndjson' || accepted === 'application/jsonl' ? 'jsonl' : 'json';
}

export function auditLogRouter(s: Engines): Router {
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
  router.post('/exports', admin, async (req, res) => {
    const started = await startAuditExport(s, principalOf(req), auditExportBody.parse(req.body));
    res.status(202).location(`${req.baseUrl}/exports/${started.id}`).json(started);
  });
  router.get('/exports/:id', authorize('settings:manage'), async (req, res) => {
    res.json(await getAuditExport(principalOf(req), String(req.params.id)));
  });
  router.get('/exports/:id/download', authorize('settings:manage'), async (req, res) => {
    const file = await openAuditExport(s, principalOf(req), String(req.params.id));
    res.attachment(file.filename).type(file.type).set('Cache-Control', 'no-store').sendFile(file.path, { dotfiles: 'allow' });
  });
  return router;
}
