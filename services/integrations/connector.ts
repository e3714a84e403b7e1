/**
 * The one interface every integration kind implements (services/integrations/<type>.ts).
 * A connector is a thin, real HTTP client for its vendor's documented API; everything
 * else (storage of credentials, lifecycle routes, notifications from the event stream,
 * sync workflows with batching and backoff) is shared and kind-agnostic.
 */
import type { z } from 'zod';
import type { IntegrationType } from '../../models/integration';

export type IntegrationKind = 'chat' | 'crm' | 'storage';

/** The values of `notify_on`: the spec's three, plus renewal reminders from the renewal schedule. */
export const NOTIFY_EVENTS = ['contract_created', 'signature_completed', 'compliance_alert', 'renewal_due'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** What a connector receives for every call: where to send it and with what. */
export interface ConnectorContext {
  /** The vendor's API base (the connect body's `base_url`, else the vendor's real address), no trailing slash. */
  baseUrl: string;
  /** Non-secret settings as stored (`config` of the integration). */
  config: Record<string, unknown>;
  /** Decrypted secrets as stored (tokens, webhook URLs). */
  credentials: Record<string, string>;
  /** fetch bound to the URL policy (no private/metadata addresses unless allowed) and a timeout. */
  fetch: typeof fetch;
}

/** A chat message built from one event; each chat connector renders it in its own format. */
export interface Notification {
  event: NotifyEvent;
  title: string;
  text: string;
  /** Label → value pairs (contract, counterparty, signer, priority, ...). */
  facts: Array<{ label: string; value: string }>;
}

/** The contract fields CRM and storage connectors map to the vendor's records. */
export interface ContractRecord {
  id: string;
  title: string;
  type: string;
  status: string;
  counterparty: string;
  value: number | null;
  currency: string;
  start_date: string | null;
  end_date: string | null;
  signed_at: string | null;
  content: string;
  updated_at: string;
}

/** Per contract id, the vendor's id of the record or file written (kept for later updates). */
export type UpsertResult = Record<string, string>;

/**
 * A vendor answered in a way worth telling apart: rate limited (429, or a vendor's own
 * signal such as Salesforce's 403 REQUEST_LIMIT_EXCEEDED: retry after `retryAfterMs` or
 * with backoff), 401/403 (credentials no longer valid: not retried), anything else non-2xx.
 */
export class VendorError extends Error {
  constructor(
    readonly vendor: IntegrationType,
    readonly status: number,
    readonly detail: string,
    readonly retryAfterMs: number | null = null,
    readonly rateLimited: boolean = status === 429,
  ) {
    super(`${vendor} answered ${status}: ${detail}`);
  }
  get retryable(): boolean {
    return this.rateLimited || this.status >= 500;
  }
}

export interface Connector<Body extends z.ZodObject = z.ZodObject> {
  type: IntegrationType;
  kind: IntegrationKind;
  /** The vendor's real API address, used when the connect body has no `base_url`. */
  defaultBaseUrl: string;
  /** The connect body (credentials and settings, plus the optional `base_url`). */
  connectBody: Body;
  /** Which connect-body fields are secrets (stored encrypted, redacted in lists). */
  secretFields: ReadonlyArray<keyof z.infer<Body> & string>;
  /** A real, harmless call (chat kinds: a test message). */
  test(ctx: ConnectorContext): Promise<{ ok: boolean; detail: string }>;
  /** Chat kinds: posts one notification. */
  notify?(ctx: ConnectorContext, n: Notification): Promise<void>;
  /** CRM and storage kinds: the most records one `upsert` call may carry. */
  batchSize?: number;
  /**
   * CRM and storage kinds: creates or updates one batch, keyed by contract id, so a repeated
   * call changes nothing new. `known` has the vendor ids of earlier upserts (storage files).
   */
  upsert?(ctx: ConnectorContext, contracts: ContractRecord[], known: UpsertResult): Promise<UpsertResult>;
}
