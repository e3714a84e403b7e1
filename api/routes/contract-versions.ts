/**
 * A contract's versions: the list, one with its text, a restore, and the redline between two
 * (JSON, or HTML for `Accept: text/html`). Use cases in services/contracts/.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { contractView } from '../../models/contract';
import { versionView } from '../../services/contracts/contract-versions';
import { compareContractVersions, getContractVersion, listContractVersions } from '../../services/contracts/read-contract-versions';
import { restoreContractVersion } from '../../services/contracts/restore-contract-version';
import { REDLINE_CSP, renderRedlineHtml } from '../../services/contracts/redline-html';
import { authorize, principalOf } from '../http/middleware/auth';
import { diffParams, restoreBody, versionParams } from '../operations/contract-versions';

export function contractVersionsRouter(s: Engines): Router {
  const router = Router();

  router.get('/:id/versions', authorize('contracts:read'), async (req, res) => {
    const versions = await listContractVersions(principalOf(req), req.params.id);
    res.json({ versions: versions.map((v) => versionView(v)), total: versions.length });
  });

  router.get('/:id/versions/:n', authorize('contracts:read'), async (req, res) => {
    const { n } = versionParams.parse(req.params);
    res.json(versionView(await getContractVersion(principalOf(req), req.params.id, n), true));
  });

  router.post('/:id/versions/:n/restore', authorize('contracts:write'), async (req, res) => {
    const { n } = versionParams.parse(req.params);
    const body = restoreBody.parse(req.body ?? {});
    res.json(contractView(await restoreContractVersion(principalOf(req), req.params.id, n, body.version_note)));
  });

  router.get('/:id/versions/:a/diff/:b', authorize('contracts:read'), async (req, res) => {
    const { a, b } = diffParams.parse(req.params);
    const { title, diff } = await compareContractVersions(s, principalOf(req), req.params.id, a, b);
    res.vary('Accept');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') {
      res.set({ 'Content-Security-Policy': REDLINE_CSP, 'Cache-Control': 'no-store' });
      res.type('html').send(renderRedlineHtml(title, diff));
      return;
    }
    res.json(diff);
  });

  return router;
}
