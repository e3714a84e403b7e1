/**
 * Templates (services/templates/): upload (a DOCX or text with tags, checked at once), new
 * versions, publish and archive by admins and owners; members list and read the published
 * ones, with their variables as a JSON Schema. Drafting from one is POST /contracts with a
 * `template_id` (api/routes/contracts.ts).
 */
import { Router, type Request } from 'express';
import type { Engines } from '../../platform/engines';
import { templateDefinition, templateInput, versionDefinition } from '../../services/templates/read-template-file';
import { addTemplateVersion, archiveTemplate, createTemplate, publishBody, publishTemplate } from '../../services/templates/edit-templates';
import {
  listTemplates,
  listTemplatesQuery,
  templateListItem,
  templateView,
  versionView,
  visibleTemplate,
} from '../../services/templates/template-view';
import { startBulkSend } from '../../services/templates/start-bulk-send';
import { importView } from '../../models/import';
import { badRequest } from '../../platform/errors';
import { authorize, principalOf } from '../http/middleware/auth';
import { receiveFiles } from '../http/middleware/receive-file';
import '../operations/templates';

type Parts = Record<string, Array<{ path: string; size: number }>> | undefined;
const partsOf = (req: Request) => {
  const files = req.files as Parts;
  return files ? { file: files.file?.[0], definition: files.definition?.[0] } : null;
};

export function templatesRouter(s: Engines): Router {
  const router = Router();
  const upload = receiveFiles(s, [
    { name: 'file', maxBytes: s.config.TEMPLATE_MAX_BYTES },
    { name: 'definition', maxBytes: 512 * 1024 },
  ]);

  router.get('/', authorize('contracts:read'), async (req, res) => {
    const { status } = listTemplatesQuery.parse(req.query);
    const items = await listTemplates(principalOf(req), status);
    res.json({ templates: items.map(templateListItem) });
  });

  router.post('/', authorize('templates:manage'), upload, async (req, res) => {
    const { file, def } = await templateInput(s.config, partsOf(req), req.body, templateDefinition);
    const { template } = await createTemplate(principalOf(req), file, def);
    res.status(201).json(await templateView(principalOf(req), template));
  });

  router.get('/:id', authorize('contracts:read'), async (req, res) => {
    const p = principalOf(req);
    res.json(await templateView(p, await visibleTemplate(p, req.params.id)));
  });

  router.post('/:id/versions', authorize('templates:manage'), upload, async (req, res) => {
    const { file, def } = await templateInput(s.config, partsOf(req), req.body, versionDefinition);
    const { version } = await addTemplateVersion(principalOf(req), req.params.id, file, def);
    res.status(201).json(versionView(version));
  });

  router.post('/:id/publish', authorize('templates:manage'), async (req, res) => {
    const { version } = publishBody.parse(req.body ?? {});
    res.json(templateListItem(await publishTemplate(principalOf(req), req.params.id, version)));
  });

  const csv = receiveFiles(s, [{ name: 'file', maxBytes: s.config.IMPORT_RECORDS_MAX_BYTES }], {
    reserveBytes: s.config.IMPORT_DISK_RESERVE_BYTES,
  });
  router.post('/:id/bulk-send', authorize('signatures:send'), csv, async (req, res) => {
    const file = (req.files as Record<string, Express.Multer.File[] | undefined> | undefined)?.file?.[0];
    if (!file) throw badRequest('file: is required (multipart/form-data field "file", a CSV file)');
    const job = await startBulkSend(s, principalOf(req), req.params.id, file);
    // The workflow reads the CSV and removes it when the job ends.
    res.locals.keepUpload = true;
    res.status(202).location(`/api/v1/imports/${job.id}`).json(importView(job));
  });

  router.post('/:id/archive', authorize('templates:manage'), async (req, res) => {
    res.json(templateListItem(await archiveTemplate(principalOf(req), req.params.id)));
  });

  return router;
}
