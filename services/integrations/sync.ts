/**
 * CRM and storage syncs: `POST /integrations/:type/sync` starts a full run
 * (`crm-sync-...` / `storage-sync-...`), and a relay consumer keeps connected integrations
 * current: each contract change starts `integration-sync-<eventId>-<integrationId>` for
 * that one contract, so edits reach the vendor without a manual sync.
 */
import type { Engines } from '../../platform/engines';
import type { EventConsumer } from '../../platform/outbox/relay';
import type { Principal } from '../../platform/security/principal';
import { badRequest } from '../../platform/errors';
import { startWorkflow } from '../../platform/temporal/client';
import { fullSyncWorkflowId, integrationSync, integrationSyncWorkflowId } from '../../workflows/integration-sync.shared';
import { connectorFor } from './index';
import type { Connector, ContractRecord } from './connector';
import { connectedIntegration, liveIntegrations } from './find-integration';
import { type IntegrationDoc, type IntegrationType } from '../../models/integration';
import type { ContractDoc } from '../../models/contract';

/** The connector of a type when it syncs contracts (CRM or storage), else undefined. */
export function syncConnector(type: IntegrationType): Connector | undefined {
  const c = connectorFor(type);
  return c && (c.kind === 'crm' || c.kind === 'storage') && c.upsert ? c : undefined;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The fields connectors map to the vendor's records. */
export function contractRecord(c: ContractDoc): ContractRecord {
  return {
    id: c.id,
    title: c.title,
    type: c.type,
    status: c.status,
    counterparty: c.counterparty,
    value: c.value ?? null,
    currency: c.currency ?? 'USD',
    start_date: iso(c.start_date),
    end_date: iso(c.end_date),
    signed_at: iso(c.signed_at),
    content: c.content ?? '',
    updated_at: iso(c.updated_at) ?? new Date(0).toISOString(),
  };
}

/**
 * Starts a full sync of the integration's organization; returns its workflow id.
 * Ids are `<kind>-sync-<integrationId>-<start time>`: one per request, each findable by the integration.
 */
export async function startIntegrationSync(
  s: Engines,
  integration: Pick<IntegrationDoc, 'id' | 'type' | 'organization_id'>,
): Promise<string> {
  const connector = syncConnector(integration.type);
  if (!connector) throw new Error(`${integration.type} does not sync contracts`);
  const integrationId = integration.id;
  const organizationId = integration.organization_id.toHexString();
  const workflowId = fullSyncWorkflowId(connector.kind, integrationId, Date.now());
  await startWorkflow(s, integrationSync, {
    workflowId,
    args: [{ organizationId, integrationId }],
    organizationId,
    recordId: integrationId,
  });
  return workflowId;
}

/** Starts a full sync of the caller's connected integration of that type; 400 for kinds that do not sync. */
export async function requestIntegrationSync(s: Engines, p: Principal, type: IntegrationType): Promise<string> {
  if (!syncConnector(type)) throw badRequest(`type: ${type} does not sync contracts`);
  return startIntegrationSync(s, await connectedIntegration(p, type));
}

/** The contract an event is about, for events that change what the vendors hold. */
function changedContract(event: { type: string; resource_id: string; data: unknown }): string | null {
  // Deletions are not propagated: the vendor keeps its last copy (records of a past contract).
  if (event.type === 'contract.created' || event.type === 'contract.updated') return event.resource_id;
  // Completion activates the contract and sets signed_at: storage gets its signed copy.
  if (event.type === 'signature.completed') {
    const id = (event.data as { contract_id?: unknown } | null)?.contract_id;
    return typeof id === 'string' ? id : null;
  }
  return null;
}

export const integrationSyncConsumer: EventConsumer = {
  name: 'integration-sync',
  async consume(s, event) {
    const contractId = changedContract(event);
    if (!contractId) return;
    const organizationId = event.organization_id.toHexString();
    for (const i of await liveIntegrations(organizationId)) {
      if (!syncConnector(i.type)) continue;
      const integrationId = i._id.toHexString();
      await startWorkflow(s, integrationSync, {
        workflowId: integrationSyncWorkflowId(event.id, integrationId),
        args: [{ organizationId, integrationId, contractIds: [contractId] }],
        organizationId,
        recordId: integrationId,
      });
    }
  },
};
