/**
 * A contract's key terms (extract, read, confirm or correct) and the renewals coming up.
 * Mounted on /contracts before the contracts router, so `/contracts/renewals` is not taken
 * for a contract id.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { upcomingRenewals } from '../../services/contracts/contract-terms';
import {
  extractTermsOfContract,
  getContractTerms,
  updateContractTerms,
  updateTermsBody,
} from '../../services/contracts/edit-contract-terms';
import { authorize, principalOf } from '../http/middleware/auth';
import { renewalsQuery } from '../operations/contract-terms';

export function contractTermsRouter(s: Engines): Router {
  const router = Router();

  router.get('/renewals', authorize('contracts:read'), async (req, res) => {
    const { within_days } = renewalsQuery.parse(req.query);
    const renewals = await upcomingRenewals(principalOf(req).organizationId, within_days);
    res.json({ renewals, total: renewals.length });
  });

  router.post('/:id/extract', authorize('contracts:write'), async (req, res) => {
    res.json(await extractTermsOfContract(s, principalOf(req), req.params.id));
  });

  router.get('/:id/terms', authorize('contracts:read'), async (req, res) => {
    res.json(await getContractTerms(principalOf(req), req.params.id));
  });

  router.put('/:id/terms', authorize('contracts:write'), async (req, res) => {
    const body = updateTermsBody.parse(req.body);
    res.json(await updateContractTerms(s, principalOf(req), req.params.id, body));
  });

  return router;
}
