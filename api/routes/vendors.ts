/**
 * Vendors: CRUD, list by status and risk level, AI risk assessment (the score and level
 * are stored on the vendor) and NDA generation (a new nda contract linked to the vendor),
 * in services/vendors/.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { contractView } from '../../models/contract';
import { assessVendorRisk } from '../../services/vendors/assess-vendor-risk';
import { createVendor, createVendorBody, deleteVendor, updateVendor, updateVendorBody } from '../../services/vendors/edit-vendor';
import { generateNda, ndaBody } from '../../services/vendors/generate-nda';
import { getVendor, listQuery, listVendors } from '../../services/vendors/list-vendors';
import { authorize, principalOf } from '../http/middleware/auth';
import { idempotent } from '../http/middleware/idempotency';
import { sendPage } from '../http/pages';
import '../operations/vendors';

export function vendorsRouter(s: Engines): Router {
  const router = Router();
  const once = idempotent(s.logger);

  router.get('/', authorize('vendors:read'), async (req, res) => {
    const q = listQuery.parse(req.query);
    sendPage(res, 'vendors', q, await listVendors(s, principalOf(req), q));
  });

  router.post('/', authorize('vendors:write'), once, async (req, res) => {
    res.status(201).json((await createVendor(s, principalOf(req), createVendorBody.parse(req.body))).toJSON());
  });

  router.get('/:id', authorize('vendors:read'), async (req, res) => {
    res.json((await getVendor(principalOf(req), req.params.id)).toJSON());
  });

  router.put('/:id', authorize('vendors:write'), async (req, res) => {
    const body = updateVendorBody.parse(req.body);
    res.json((await updateVendor(principalOf(req), req.params.id, body)).toJSON());
  });

  router.delete('/:id', authorize('vendors:delete'), async (req, res) => {
    await deleteVendor(s, principalOf(req), req.params.id);
    res.status(204).end();
  });

  router.post('/:id/risk-assessment', authorize('vendors:write'), async (req, res) => {
    res.json(await assessVendorRisk(s, principalOf(req), req.params.id));
  });

  router.post('/:id/generate-nda', authorize('contracts:write'), once, async (req, res) => {
    const body = ndaBody.parse(req.body ?? {});
    res.status(201).json(contractView(await generateNda(s, principalOf(req), req.params.id, body)));
  });

  return router;
}
