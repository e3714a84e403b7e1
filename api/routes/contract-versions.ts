/**
 * A contract's versions: the list, one with its text, one as a Word file, a Word file taken
 * back as a new version, a restore, and the redline between two (JSON, HTML for
 * `Accept: text/html`, or a Word file with tracked changes). Use cases in services/contracts/.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { contractView } from '../../models/contract';
import { versionView } from '../../services/contracts/contract-versions';
import { compareContractVersions, getContractVersion, listContractVersions } from '../../services/contracts/read-contract-versions';
import { restoreContractVersion } from '../../services/contracts/restore-contract-version';
import { REDLINE_CSP, renderRedlineHtml } from '../../services/contracts/redline-html';
import { exportRedlineDocx, exportVersionDocx } from '../../services/contracts/export-version-docx';
import { importWordVersion } from '../../services/contracts/import-word-version';
import { sanitizeFilename } from '../../services/documents/document-files';
import { DOCX_MIME } from '../../platform/docx/ooxml';
import { badRequest } from '../../platform/errors';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { receiveFile } from '../http/middleware/receive-file';
import { diffParams, restoreBody, versionParams, wordVersionBody } from '../operations/contract-versions';

export function contractVersionsRouter(s: Engines): Router {
  const router = Router();

  router.get('/:id/versions', authorize('contracts:read'), async (req, res) => {
    const versions = await listContractVersions(principalOf(req), req.params.id);
    res.json({ versions: versions.map((v) => versionView(v)), total: versions.length });
  });

  router.post('/:id/versions', authorize('contracts:write'), receiveFile(s), idempotent(s.logger), async (req, res) => {
    if (!req.file) throw badRequest('file: is required (multipart/form-data field "file", a DOCX)');
    const body = wordVersionBody.parse(req.body ?? {});
    const version = await importWordVersion(s, principalOf(req), req.params.id, req.file, body.version_note);
    res.locals.keepUpload = true;
    res.status(201).json(versionView(version, true));
  });

  router.get('/:id/versions/:n/document.docx', authorize('contracts:read'), async (req, res) => {
    const { n } = versionParams.parse(req.params);
    const { title, file } = await exportVersionDocx(s, principalOf(req), req.params.id, n);
    res
      .attachment(sanitizeFilename(`${title} v${n}.docx`))
      .type(DOCX_MIME)
      .set('Cache-Control', 'no-store');
    if ('path' in file) res.sendFile(file.path, { dotfiles: 'allow' });
    else res.send(file.bytes);
  });

  router.get('/:id/versions/:n', authorize('contracts:read'), async (req, res) => {
    const { n } = versionParams.parse(req.params);
    res.json(versionView(await getContractVersion(principalOf(req), req.params.id, n), true));
  });

  router.post('/:id/versions/:n/restore', authorize('contracts:write'), async (req, res) => {
    const { n } = versionParams.parse(req.params);
    const body = restoreBody.parse(req.body ?? {});
    res.json(contractView(await restoreContractVersion(s, principalOf(req), req.params.id, n, body.version_note)));
  });

  router.get('/:id/versions/:a/diff/:b', authorize('contracts:read'), async (req, res) => {
    const { a, b } = diffParams.parse(req.params);
    const { title, diff } = await compareContractVersions(s, principalOf(req), req.params.id, a, b);
    res.vary('Accept');
    const wanted = req.accepts(['application/json', 'text/html', DOCX_MIME]);
    if (wanted === DOCX_MIME) {
      res.attachment(sanitizeFilename(`${title} v${a} to v${b} redline.docx`)).set('Cache-Control', 'no-store');
      res.type(DOCX_MIME).send(await exportRedlineDocx(principalOf(req), req.params.id, diff));
      return;
    }
    if (wanted === 'text/html') {
      res.set({ 'Content-Security-Policy': REDLINE_CSP, 'Cache-Control': 'no-store' });
      res.type('html').send(renderRedlineHtml(title, diff));
      return;
    }
    res.json(diff);
  });

  return router;
}
