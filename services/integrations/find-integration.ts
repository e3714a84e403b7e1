/** The integration a request names: its type's connector, and the caller's record of that type in use. */
import { z } from 'zod';
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { integrationErrors } from './errors';
import { sharedFlush } from '../../platform/shared-flush';
import { orgFilter } from '../../models/base';
import { INTEGRATION_TYPES, Integration, type IntegrationType } from '../../models/integration';
import type { Connector } from './connector';
import { CONNECTORS, LIVE, connectorFor } from './index';

const typeParam = z.enum(INTEGRATION_TYPES);

/** The `:type` and its connector; unknown types answer 404 naming the known ones. */
export function connectorOfParam(raw: unknown): { type: IntegrationType; connector: Connector } {
  const parsed = typeParam.safeParse(raw);
  const connector = parsed.success ? connectorFor(parsed.data) : undefined;
  if (!parsed.success || !connector) {
    throw integrationErrors.integration_type_unknown(
      `Unknown integration type "${String(raw)}"; one of ${Object.keys(CONNECTORS).join(', ')}`,
    );
  }
  return { type: parsed.data, connector };
}

/** The caller's connected (or failing) integration of that type; 404 when absent or disconnected. */
export async function connectedIntegration(p: Principal, type: IntegrationType) {
  const integration = await Integration.findOne({ ...orgFilter(p.organizationId), type, status: LIVE });
  if (!integration) throw notFound(`Connected ${type} integration`);
  return integration;
}

/**
 * An organization's live integrations (id, type, settings), for the relay's consumers: the
 * consumers of one event, and the events relayed while a read of the organization is under
 * way, share one read.
 */
export const liveIntegrations = sharedFlush((organizationId: string) =>
  Integration.find({ ...orgFilter(organizationId), status: LIVE }, { _id: 1, type: 1, config: 1 })
    .lean()
    .exec(),
);
