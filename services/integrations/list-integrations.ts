/** The organization's integrations as listed: settings as connected, every secret redacted. */
import type { Principal } from '../../platform/security/principal';
import { orgFilter } from '../../models/base';
import { Integration, type IntegrationDoc } from '../../models/integration';
import { connectorFor, redactedConfig } from './index';

export function integrationView(doc: IntegrationDoc) {
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

export function listIntegrations(p: Principal): Promise<IntegrationDoc[]> {
  return Integration.find(orgFilter(p.organizationId)).sort({ type: 1 });
}
