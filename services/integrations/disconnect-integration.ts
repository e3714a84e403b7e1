/** Disconnecting an integration erases its credentials; the record stays, with its sync history. */
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { orgFilter } from '../../models/base';
import { Integration, type IntegrationType } from '../../models/integration';
import { LIVE } from './index';

/** 404 when the caller has no connected (or failing) integration of that type. */
export async function disconnectIntegration(p: Principal, type: IntegrationType): Promise<void> {
  const done = await Integration.updateOne(
    { ...orgFilter(p.organizationId), type, status: LIVE },
    { $set: { status: 'disconnected', credentials_encrypted: null, last_error: null } },
  );
  if (done.matchedCount === 0) throw notFound(`Connected ${type} integration`);
}
