/**
 * Contracts: CRUD, list with filters and search, AI drafting and AI risk analysis
 * (services/contracts/). Every change writes its event to the outbox.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { contractView } from '../../models/contract';
import { analyzeContract, draftBody, draftContractText } from '../../services/contracts/contract-ai';
import { createContract, createContractBody, updateContract, updateContractBody } from '../../services/contracts/edit-contract';
import { deleteContract } from '../../services/contract-deletion/delete-contract';
import { getContract } from '../../services/contracts/get-contract';
import { listContracts, listQuery } from '../../services/contracts/list-contracts';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { sendPage } from '../http/pages';
import '../operations/contracts';

export function contractsRouter(s: Engines): Router {
  const router = Router();
  const once = idempotent(s.logger);

  router.get('/', authorize('contracts:read'), async (req, res) => {
    const q = listQuery.parse(req.query);
    sendPage(res, 'contracts', q, await listContracts(s, principalOf(req), q));
  });

  router.post('/', authorize('contracts:write'), once, async (req, res) => {
    res.status(201).json(contractView(await createContract(principalOf(req), createContractBody.parse(req.body))));
  });

  router.get('/:id', authorize('contracts:read'), async (req, res) => {
    res.json(contractView(await getContract(principalOf(req), req.params.id)));
  });

  router.put('/:id', authorize('contracts:write'), async (req, res) => {
    const body = updateContractBody.parse(req.body);
    res.json(contractView(await updateContract(principalOf(req), req.params.id, body)));
  });

  router.delete('/:id', authorize('contracts:delete'), async (req, res) => {
    await deleteContract(s, principalOf(req), req.params.id);
    res.status(204).end();
  });

  router.post('/:id/draft-ai', authorize('contracts:write'), async (req, res) => {
    const body = draftBody.parse(req.body ?? {});
    res.json(contractView(await draftContractText(s, principalOf(req), req.params.id, body)));
  });

  router.post('/:id/analyze', authorize('contracts:write'), async (req, res) => {
    res.json(await analyzeContract(s, principalOf(req), req.params.id));
  });

  return router;
}
