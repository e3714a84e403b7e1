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
import { draftFromTemplate, draftFromTemplateBody } from '../../services/templates/draft-from-template';
import { checkDeviations } from '../../services/deviations/check-deviations';
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
    const body: unknown = req.body;
    if (body && typeof body === 'object' && 'template_id' in body) {
      const { contract, approval } = await draftFromTemplate(s, principalOf(req), draftFromTemplateBody.parse(body));
      const started = approval?.required ? { id: approval.approval.id, status: approval.approval.status } : null;
      res.status(201).json({ ...contractView(contract), approval: started });
      return;
    }
    res.status(201).json(contractView(await createContract(s, principalOf(req), createContractBody.parse(body))));
  });

  router.get('/:id', authorize('contracts:read'), async (req, res) => {
    res.json(contractView(await getContract(principalOf(req), req.params.id)));
  });

  router.put('/:id', authorize('contracts:write'), async (req, res) => {
    const body = updateContractBody.parse(req.body);
    res.json(contractView(await updateContract(s, principalOf(req), req.params.id, body)));
  });

  router.delete('/:id', authorize('contracts:delete'), async (req, res) => {
    await deleteContract(s, principalOf(req), req.params.id);
    res.status(204).end();
  });

  router.post('/:id/draft-ai', authorize('contracts:write'), async (req, res) => {
    const body = draftBody.parse(req.body ?? {});
    res.json(contractView(await draftContractText(s, principalOf(req), req.params.id, body)));
  });

  // Reading the text of record may parse its file again (in a child process), as an analysis does.
  router.get('/:id/deviations', authorize('contracts:read'), async (req, res) => {
    res.json(await checkDeviations(s, principalOf(req), req.params.id));
  });

  router.post('/:id/analyze', authorize('contracts:write'), async (req, res) => {
    res.json(await analyzeContract(s, principalOf(req), req.params.id));
  });

  return router;
}
