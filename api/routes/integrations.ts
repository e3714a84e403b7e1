/**
 * Integrations: connect (per-kind body, URL policy, secrets sealed), list (secrets
 * redacted), test (a real vendor call), disconnect (credentials erased) and sync
 * (services/integrations/). Kind-specific behaviour lives in the connectors.
 */
import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { connectIntegration } from '../../services/integrations/connect-integration';
import { disconnectIntegration } from '../../services/integrations/disconnect-integration';
import { connectorOfParam } from '../../services/integrations/find-integration';
import { integrationView, listIntegrations } from '../../services/integrations/list-integrations';
import { requestIntegrationSync } from '../../services/integrations/sync';
import { testIntegration } from '../../services/integrations/test-integration';
import { authorize, principalOf } from '../http/middleware/auth';
import '../operations/integrations';

export function integrationsRouter(s: Engines): Router {
  const router = Router();
  const manage = authorize('integrations:manage');

  router.get('/', authorize('integrations:read'), async (req, res) => {
    res.json({ integrations: (await listIntegrations(principalOf(req))).map(integrationView) });
  });

  router.post('/:type/connect', manage, async (req, res) => {
    const { connector } = connectorOfParam(req.params.type);
    const body: Record<string, unknown> = connector.connectBody.parse(req.body ?? {});
    res.status(201).json(integrationView(await connectIntegration(s, principalOf(req), connector, body)));
  });

  router.post('/:type/test', manage, async (req, res) => {
    res.json(await testIntegration(s, principalOf(req), connectorOfParam(req.params.type).connector));
  });

  router.delete('/:type/disconnect', manage, async (req, res) => {
    await disconnectIntegration(principalOf(req), connectorOfParam(req.params.type).type);
    res.status(204).end();
  });

  // Members may push contracts to a connected tool; connecting and disconnecting stay with owners and admins.
  router.post('/:type/sync', authorize('integrations:sync'), async (req, res) => {
    const { type } = connectorOfParam(req.params.type);
    res.status(202).json({ workflow_id: await requestIntegrationSync(s, principalOf(req), type) });
  });

  return router;
}
