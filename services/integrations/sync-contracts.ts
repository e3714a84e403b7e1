/**
 * CRM and storage sync steps (run by activities/integration-sync.ts): how the run is cut (the
 * vendor's batch size, how many contracts), one batch upserted through the integration's
 * connector with the vendor ids kept as links, and the run's summary stored on the integration.
 */
import { trusted, Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { whileBeating } from '../../platform/temporal/heartbeat';
import { contractRecord, syncConnector } from './sync';
import { connectorContext } from './context';
import type { UpsertResult } from './connector';
import { PartialUpsertError } from './vendor-http';
import { Integration } from '../../models/integration';
import { IntegrationLink, linkContractId } from '../../models/integration-link';
import { Contract } from '../../models/contract';
import { orgFilter } from '../../models/base';
import { isDuplicateKey } from '../../platform/mongo';
import type { SyncProgress } from '../../workflows/integration-sync.shared';

export interface IntegrationRef {
  organizationId: string;
  integrationId: string;
}

/** The integration was disconnected (or lost its credentials) since the sync began: nothing more to do. */
export class IntegrationGone extends Error {
  constructor() {
    super('integration is not connected');
  }
}

async function load({ organizationId, integrationId }: IntegrationRef) {
  const integration = await Integration.findOne({ _id: integrationId, ...orgFilter(organizationId) });
  const connector = integration ? syncConnector(integration.type) : undefined;
  if (!integration || !connector?.upsert || integration.status === 'disconnected' || !integration.credentials_encrypted) {
    throw new IntegrationGone();
  }
  return { integration, connector, upsert: connector.upsert.bind(connector) };
}

/** Stores the vendor ids not known yet (a storage file's id stays the same across updates). */
async function keepLinks(ref: IntegrationRef, done: UpsertResult, known: UpsertResult) {
  const now = new Date();
  const fresh = Object.entries(done).filter(([key]) => known[key] === undefined);
  const moved = Object.entries(done).filter(([key, vendorId]) => known[key] !== undefined && known[key] !== vendorId);
  const integrationId = new Types.ObjectId(ref.integrationId);
  if (fresh.length) {
    await IntegrationLink.insertMany(
      fresh.map(([key, vendorId]) => ({
        organization_id: new Types.ObjectId(ref.organizationId),
        integration_id: integrationId,
        contract_id: linkContractId(key),
        key,
        vendor_id: vendorId,
        synced_at: now,
      })),
      { ordered: false },
    ).catch((err: unknown) => {
      // A concurrent run of the same contract stored it first: its id is as good.
      if (!isDuplicateKey(err)) throw err;
    });
  }
  for (const [key, vendorId] of moved)
    await IntegrationLink.updateOne({ integration_id: integrationId, key }, { $set: { vendor_id: vendorId, synced_at: now } });
}

/** How a full sync is cut: the vendor's batch size and how many contracts there are. */
export async function planSync(ref: IntegrationRef): Promise<{ batchSize: number; total: number }> {
  const { connector } = await load(ref);
  return { batchSize: connector.batchSize ?? 1, total: await Contract.countDocuments(orgFilter(ref.organizationId)) };
}

/** One batch upserted through the connector; a vendor's refusal is thrown as its VendorError. */
export async function upsertBatch(
  s: Engines,
  input: IntegrationRef & { contractIds: string[] },
): Promise<{ synced: number; failed: number; error: string | null }> {
  const { integration, connector, upsert } = await load(input);
  const contracts = await Contract.find({
    ...orgFilter(input.organizationId),
    _id: trusted({ $in: input.contractIds.map((id) => new Types.ObjectId(id)) }),
  });
  // Contracts deleted since they were listed have nothing left to send.
  if (!contracts.length) return { synced: 0, failed: 0, error: null };
  // CRM vendors upsert by the contract id themselves; storage needs the file ids written before.
  const keepsLinks = connector.kind === 'storage';
  const known: UpsertResult = {};
  if (keepsLinks) {
    const links = await IntegrationLink.find(
      { integration_id: integration._id, contract_id: trusted({ $in: input.contractIds }) },
      { key: 1, vendor_id: 1 },
    ).lean();
    for (const l of links) known[l.key] = l.vendor_id;
  }
  const ctx = connectorContext(s, integration, connector);
  let done: UpsertResult;
  try {
    // Beating while the vendor works: a worker killed mid-batch is noticed in seconds (the workflow's heartbeat timeout).
    done = await whileBeating(
      () => ({ contracts: contracts.length }),
      () => upsert(ctx, contracts.map(contractRecord), known),
    );
  } catch (err) {
    if (err instanceof PartialUpsertError) {
      if (keepsLinks) await keepLinks(input, err.done, known);
      throw err.failure;
    }
    throw err;
  }
  if (keepsLinks) await keepLinks(input, done, known);
  const synced = contracts.filter((c) => done[c.id]).length;
  const failed = contracts.length - synced;
  return { synced, failed, error: failed ? `${connector.type} rejected ${failed} of ${contracts.length} records` : null };
}

/** The run's summary on the integration. */
export async function recordSync({
  organizationId,
  integrationId,
  summary,
  full,
}: IntegrationRef & { summary: SyncProgress; full: boolean }): Promise<void> {
  const now = new Date();
  // A one-contract sync from an event only reports an error; the stored summary is the last full run's.
  const set = full
    ? { last_sync: { ...summary, finished_at: now.toISOString() }, last_sync_at: now, last_error: summary.last_error }
    : summary.last_error
      ? { last_error: summary.last_error }
      : {};
  if (Object.keys(set).length) await Integration.updateOne({ _id: integrationId, ...orgFilter(organizationId) }, { $set: set });
}
