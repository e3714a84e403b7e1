/**
 * The connector of every integration type: one import and one entry per kind. Routes,
 * notifications and syncs look connectors up here and never branch on the type.
 */
import { trusted } from 'mongoose';
import type { IntegrationType } from '../../models/integration';
import type { Connector } from './connector';
import { slackConnector } from './slack';
import { teamsConnector } from './teams';
import { salesforce } from './salesforce';
import { hubspot } from './hubspot';
import { googleDrive } from './google-drive';
import { clio } from './clio';

export const CONNECTORS: Record<IntegrationType, Connector> = {
  slack: slackConnector,
  teams: teamsConnector,
  salesforce,
  hubspot,
  google_drive: googleDrive,
  clio,
};

/** Query condition on `status` for integrations in use (connected or failing, not disconnected). */
export const LIVE = trusted({ $in: ['connected' as const, 'error' as const] });

export const connectorFor = (type: IntegrationType): Connector => CONNECTORS[type];

/** Shown in place of every secret in lists. */
export const REDACTED = '[redacted]';

/** A parsed connect body split into stored settings and secrets (to be sealed). */
export function splitConnectBody(connector: Connector, body: Record<string, unknown>) {
  const secret = new Set<string>(connector.secretFields);
  const config: Record<string, unknown> = {};
  const credentials: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (secret.has(key)) credentials[key] = typeof value === 'string' ? value : JSON.stringify(value);
    else config[key] = value;
  }
  return { config, credentials };
}

/** Settings as listed: the stored ones plus every secret field, redacted. */
export function redactedConfig(connector: Connector | undefined, config: unknown): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...(config as Record<string, unknown> | null) };
  for (const field of connector?.secretFields ?? []) shown[field] = REDACTED;
  return shown;
}
