/**
 * Connecting an integration: one record per organization and type, so connecting a type again
 * replaces its settings and credentials and keeps its sync history. Secrets are sealed.
 */
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { resolvedUrlRefusal } from '../../platform/security/url-policy';
import { badRequest } from '../../platform/errors';
import { integrationErrors } from './errors';
import { isDuplicateKey } from '../../platform/mongo';
import { orgFilter } from '../../models/base';
import { Integration, type IntegrationDoc } from '../../models/integration';
import type { Connector } from './connector';
import { sealCredentials } from './context';
import { splitConnectBody } from './index';

/** Stores a connect body parsed by `connector.connectBody`; answers the integration as stored. */
export async function connectIntegration(
  s: Engines,
  p: Principal,
  connector: Connector,
  body: Record<string, unknown>,
): Promise<IntegrationDoc> {
  const policy = { allowPrivate: s.config.ALLOW_PRIVATE_WEBHOOK_URLS };
  // Every URL the service will call on the customer's behalf (webhook, base, instance URLs).
  for (const [field, value] of Object.entries(body)) {
    if (!field.endsWith('url') || typeof value !== 'string') continue;
    const refused = await resolvedUrlRefusal(value, policy);
    if (refused) throw badRequest(`${field}: ${refused}`);
  }
  const { type } = connector;
  const { config, credentials } = splitConnectBody(connector, body);
  try {
    return await Integration.findOneAndUpdate(
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
    if (isDuplicateKey(err)) throw integrationErrors.integration_connecting(`${type} is being connected by another request; try again`);
    throw err;
  }
}
