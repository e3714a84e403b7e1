/**
 * The clause library (services/clauses/): per clause type a preferred position and ordered
 * fallbacks. Admins and owners post them (a type posted again becomes its next version);
 * everyone reads them.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { clauseBody } from '../../services/clause-library/clause-positions';
import { clauseView, getClause, listClauses, saveClause } from '../../services/clause-library/clause-library';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/clauses';

export function clausesRouter(_s: Engines): Router {
  const router = Router();

  router.get('/', authorize('contracts:read'), async (req, res) => {
    res.json({ clauses: (await listClauses(principalOf(req).organizationId)).map(clauseView) });
  });

  router.post('/', authorize('templates:manage'), async (req, res) => {
    const { clause, created } = await saveClause(principalOf(req), clauseBody.parse(req.body));
    res.status(created ? 201 : 200).json(clauseView(clause));
  });

  router.get('/:id', authorize('contracts:read'), async (req, res) => {
    res.json(clauseView(await getClause(principalOf(req), req.params.id)));
  });

  return router;
}
