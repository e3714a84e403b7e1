/**
 * Integrations: connect (per-kind body, URL policy, secrets sealed), list (secrets
 * redacted), test (a real vendor call) and disconnect (credentials erased). One record per
 * organization and type: connecting a type again replaces its settings and credentials
 * (201 again) and keeps its sync history. Kind-specific behaviour lives in the connectors.
 */
import { Router } from 'express';
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Services } from '../../platform/services';
import type { Principal } from '../../platform/security/principal';
import { connectionFailure, resolvedUrlRefusal } from '../../platform/security/url-policy';
import { CONNECTORS, LIVE, connectorFor, redactedConfig, splitConnectBody } from '../../services/integrations';
import type { Connector } from '../../services/integrations/connector';
import { connectorContext, sealCredentials } from '../../services/integrations/context';
import { startIntegrationSync, syncConnector } from '../../services/integrations/sync';
import { INTEGRATION_STATUSES, INTEGRATION_TYPES, Integration, type IntegrationDoc, type IntegrationType } from '../../models/integration';
import { orgFilter } from '../../models/base';
import { authorize, principalOf } from '../http/middleware/auth';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors';
import { operation, registry, timestamp } from '../http/openapi';
import { isDuplicateKey } from '../../platform/mongo';

const tag = 'Integrations';

const integrationSchema = registry.register(
  'Integration',
  z.object({
    type: z.enum(INTEGRATION_TYPES),
    status: z.enum(INTEGRATION_STATUSES),
    config: z.record(z.string(), z.unknown()).meta({ description: 'Settings as connected; secret fields show as "[redacted]"' }),
    connected_at: timestamp,
    last_sync_at: timestamp.nullable(),
    last_error: z.string().nullable(),
    last_sync: z.record(z.string(), z.unknown()).nullable().meta({ description: 'Summary of the last sync (CRM and storage kinds)' }),
  }),
);
const testResult = z.object({ ok: z.boolean(), detail: z.string() });
const pascal = (type: string) =>
  type
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
const SYNC_TYPES = INTEGRATION_TYPES.filter((t) => syncConnector(t));

// The path names the type, so each type's connect body is its own operation at its concrete
// path: a oneOf under `/integrations/{type}/connect` could not tie the body to the path, and
// the interface's bodies carry no type field a discriminator could read.
for (const type of INTEGRATION_TYPES) {
  operation({
    path: `/integrations/${type}/connect`,
    method: 'post',
    tag,
    operationId: `connect${pascal(type)}Integration`,
    summary: `Connect (or reconnect) ${type}`,
    description: `${CONNECTORS[type].kind === 'chat' ? 'Chat notifications: webhook_url, channel and notify_on. ' : ''}Secrets are stored encrypted. Connecting a connected type replaces its settings.`,
    body: registry.register(`${pascal(type)}Connect`, CONNECTORS[type].connectBody),
    responses: { 201: { description: 'The integration, secrets redacted', schema: integrationSchema } },
  });
}
const anyType = { params: z.object({ type: z.enum(INTEGRATION_TYPES) }) };
operation({
  path: '/integrations',
  method: 'get',
  tag,
  summary: "List the organization's integrations",
  responses: { 200: { description: 'Integrations', schema: z.object({ integrations: z.array(integrationSchema) }) } },
});
operation({
  path: '/integrations/{type}/test',
  method: 'post',
  tag,
  ...anyType,
  summary: 'Test the connection with a real call (chat kinds send a test message); a failure is recorded on the integration',
  responses: { 200: { description: 'The outcome', schema: testResult } },
});
operation({
  path: '/integrations/{type}/disconnect',
  method: 'delete',
  tag,
  ...anyType,
  summary: 'Disconnect: credentials are erased',
  responses: { 204: 'Disconnected' },
});
operation({
  path: '/integrations/{type}/sync',
  method: 'post',
  tag,
  params: z.object({ type: z.enum(SYNC_TYPES) }),
  summary: 'Sync every contract to a CRM or storage integration',
  description:
    "Starts a `crm-sync-...` or `storage-sync-...` workflow: batches of the vendor's size, upserts keyed by contract id, waits honouring 429 Retry-After; Temporal query `progress` gives { total, synced, failed, batches }, and the summary lands in the integration's last_sync. Chat kinds answer 400. Members and above.",
  responses: { 202: { description: 'Started', schema: z.object({ workflow_id: z.string() }) } },
});

function integrationView(doc: IntegrationDoc) {
  return {
    type: doc.type,
    status: doc.status,
    config: redactedConfig(connectorFor(doc.type), doc.config),
    connected_at: doc.connected_at,
    last_sync_at: doc.last_sync_at ?? null,
    last_error: doc.last_error ?? null,
    last_sync: (doc.last_sync as Record<string, unknown> | null) ?? null,
  };
}

const typeParam = z.enum(INTEGRATION_TYPES);

/** The `:type` and its connector; unknown types answer 404 naming the known ones. */
export function connectorOfParam(raw: unknown): { type: IntegrationType; connector: Connector } {
  const parsed = typeParam.safeParse(raw);
  const connector = parsed.success ? connectorFor(parsed.data) : undefined;
  if (!parsed.success || !connector) {
    throw new AppError(404, `Unknown integration type "${String(raw)}"; one of ${Object.keys(CONNECTORS).join(', ')}`);
  }
  return { type: parsed.data, connector };
}

/** The caller's connected (or failing) integration of that type; 404 when absent or disconnected. */
export async function connectedIntegration(p: Principal, type: IntegrationType) {
  const integration = await Integration.findOne({ ...orgFilter(p.organizationId), type, status: LIVE });
  if (!integration) throw notFound(`Connected ${type} integration`);
  return integration;
}

/** What a failed vendor call tells the user: the vendor's answer, a timeout or the kind of connection failure (never an address). */
function failureDetail(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'the vendor did not answer in time';
  return connectionFailure(err);
}

export function integrationsRouter(s: Services): Router {
  const router = Router();
  const policy = { allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS };
  const manage = authorize('integrations:manage');

  router.get('/', authorize('integrations:read'), async (req, res) => {
    const docs = await Integration.find(orgFilter(principalOf(req).organizationId)).sort({ type: 1 });
    res.json({ integrations: docs.map(integrationView) });
  });

  router.post('/:type/connect', manage, async (req, res) => {
    const p = principalOf(req);
    const { type, connector } = connectorOfParam(req.params.type);
    const body: Record<string, unknown> = connector.connectBody.parse(req.body ?? {});
    // Every URL the service will call on the customer's behalf (webhook, base, instance URLs).
    for (const [field, value] of Object.entries(body)) {
      if (!field.endsWith('url') || typeof value !== 'string') continue;
      const refused = await resolvedUrlRefusal(value, policy);
      if (refused) throw badRequest(`${field}: ${refused}`);
    }
    const { config, credentials } = splitConnectBody(connector, body);
    let doc;
    try {
      doc = await Integration.findOneAndUpdate(
        { ...orgFilter(p.organizationId), type },
        {
          $set: {
            status: 'connected',
            config,
            credentials_encrypted: sealCredentials(s, credentials),
            connected_at: new Date(),
            connected_by: new Types.ObjectId(p.userId),
            last_error: null,
          },
        },
        { upsert: true, returnDocument: 'after' },
      );
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`${type} is being connected by another request; try again`);
      throw err;
    }
    res.status(201).json(integrationView(doc));
  });

  router.post('/:type/test', manage, async (req, res) => {
    const { type, connector } = connectorOfParam(req.params.type);
    const integration = await connectedIntegration(principalOf(req), type);
    let result: { ok: boolean; detail: string };
    try {
      result = await connector.test(connectorContext(s, integration, connector));
    } catch (err) {
      result = { ok: false, detail: failureDetail(err) };
    }
    await Integration.updateOne(
      { _id: integration._id, status: LIVE },
      { $set: result.ok ? { status: 'connected', last_error: null } : { status: 'error', last_error: result.detail } },
    );
    res.json(result);
  });

  router.delete('/:type/disconnect', manage, async (req, res) => {
    const { type } = connectorOfParam(req.params.type);
    const p = principalOf(req);
    const done = await Integration.updateOne(
      { ...orgFilter(p.organizationId), type, status: LIVE },
      { $set: { status: 'disconnected', credentials_encrypted: null, last_error: null } },
    );
    if (done.matchedCount === 0) throw notFound(`Connected ${type} integration`);
    res.status(204).end();
  });

  // Members may push contracts to a connected tool; connecting and disconnecting stay with owners and admins.
  router.post('/:type/sync', authorize('integrations:sync'), async (req, res) => {
    const { type } = connectorOfParam(req.params.type);
    if (!syncConnector(type)) throw badRequest(`type: ${type} does not sync contracts`);
    const integration = await connectedIntegration(principalOf(req), type);
    res.status(202).json({ workflow_id: await startIntegrationSync(s, integration) });
  });

  return router;
}
