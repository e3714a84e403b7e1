/** Testing a connection with a real, harmless vendor call; the outcome is recorded on the integration. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { connectionFailure } from '../../platform/security/url-policy';
import { Integration } from '../../models/integration';
import type { Connector } from './connector';
import { connectorContext } from './context';
import { connectedIntegration } from './find-integration';
import { LIVE } from './index';

/** What a failed vendor call tells the user: the vendor's answer, a timeout or the kind of connection failure (never an address). */
function failureDetail(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'the vendor did not answer in time';
  return connectionFailure(err);
}

export async function testIntegration(s: Engines, p: Principal, connector: Connector): Promise<{ ok: boolean; detail: string }> {
  const integration = await connectedIntegration(p, connector.type);
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
  return result;
}
