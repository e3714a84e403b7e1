/** The OpenAPI description of the integration operations (api/routes/integrations.ts serves them). */
import { z } from 'zod';
import { INTEGRATION_STATUSES, INTEGRATION_TYPES } from '../../models/integration';
import { CONNECTORS } from '../../services/integrations';
import { syncConnector } from '../../services/integrations/sync';
import { operation, registry, timestamp } from '../http/openapi';

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
