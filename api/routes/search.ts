/**
 * Repository search (`GET /search/contracts`, services/search/search-contracts.ts; mounted on
 * /search) and the owner's rebuild of the organization's search documents
 * (`POST /admin/search/reindex`; mounted on /admin/search).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { exportContractsCsv, searchContracts } from '../../services/search/search-contracts';
import { searchParams } from '../../services/search/contract-search-query';
import { reindexOrganization } from '../../services/search/start-search-reindex';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/search';

export function searchRouter(s: Engines): Router {
  const router = Router();

  router.get('/contracts', authorize('contracts:read'), async (req, res) => {
    const params = searchParams.parse(req.query);
    const organizationId = principalOf(req).organizationId;
    if (params.format === 'json') {
      res.json(await searchContracts(s, organizationId, params));
      return;
    }
    // The first lines before the headers: a failure to start is still a JSON error.
    const lines = exportContractsCsv(s, organizationId, params);
    const first = await lines.next();
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', 'attachment; filename="contracts.csv"');
    await pipeline(
      Readable.from(
        (async function* () {
          if (!first.done) yield first.value;
          yield* lines;
        })(),
      ),
      res,
    );
  });

  return router;
}

export function searchAdminRouter(s: Engines): Router {
  const router = Router();

  router.post('/reindex', authorize('search:reindex'), async (req, res) => {
    res.status(202).json(await reindexOrganization(s, principalOf(req).organizationId));
  });

  return router;
}
