/**
 * Salesforce (CRM contract sync). Records are upserted by an external-id field through
 * sObject Collections: PATCH /services/data/vXX.X/composite/sobjects/{SObject}/{ExternalIdField}
 * with `{ allOrNone: false, records: [{ attributes: { type }, ... }] }`, at most 200 per call,
 * answered with one UpsertResult per record in request order
 * (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-composite-sobjects-collections-upsert.html).
 * Calls go to the org's `instance_url` (the OAuth token response's), so that is the base URL.
 */
import { z } from 'zod';
import type { Connector, ConnectorContext, ContractRecord, UpsertResult } from './connector';
import { VendorError } from './connector';
import { accessToken, bearer, callVendor, isoDay } from './vendor-http';

export const SALESFORCE_API_VERSION = 'v62.0';
const apiName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,79}$/, 'must be a Salesforce API name');

const connectBody = z.object({
  access_token: accessToken,
  instance_url: z.url({ protocol: /^https?$/ }),
  /** The sObject contracts become (a custom object by default: the standard Contract needs an Account). */
  object: apiName.default('CLM_Contract__c'),
  /** The object's external-id field holding the contract id. */
  external_id_field: apiName.default('CLM_Contract_Id__c'),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
});

/** The documented UpsertResult list, one per record in request order. */
const upsertResults = z.array(
  z.object({
    id: z.string().nullish(),
    success: z.boolean(),
    created: z.boolean().optional(),
    errors: z.array(z.object({ statusCode: z.string().optional(), message: z.string() })).default([]),
  }),
);

/**
 * A Salesforce call. Salesforce signals its API request limits with 403 REQUEST_LIMIT_EXCEEDED
 * rather than 429 (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm):
 * that is a wait (retried with backoff), not credentials gone bad.
 */
async function call<T extends z.ZodType>(ctx: ConnectorContext, url: string, init: RequestInit, schema: T): Promise<z.infer<T>> {
  try {
    return await callVendor('salesforce', ctx, url, init, schema);
  } catch (err) {
    if (err instanceof VendorError && err.status === 403 && /"errorCode"\s*:\s*"REQUEST_LIMIT_EXCEEDED"/.test(err.detail)) {
      throw new VendorError('salesforce', err.status, err.detail, err.retryAfterMs, true);
    }
    throw err;
  }
}

/** Stored settings: the connect body without the token. */
const settings = connectBody.omit({ access_token: true });

function cfg(ctx: ConnectorContext) {
  const c = settings.parse(ctx.config);
  return {
    // The connect body's base_url overrides the instance (e.g. a proxy in front of it).
    root: `${(c.base_url ?? c.instance_url).replace(/\/+$/, '')}/services/data/${SALESFORCE_API_VERSION}`,
    object: c.object,
    externalId: c.external_id_field,
  };
}

/** The record's fields on the custom object (custom field names end in __c). */
export function salesforceRecord(object: string, externalId: string, c: ContractRecord) {
  return {
    attributes: { type: object },
    [externalId]: c.id,
    Name: c.title.slice(0, 80),
    Contract_Type__c: c.type,
    Status__c: c.status,
    Counterparty__c: c.counterparty,
    Amount__c: c.value,
    Currency__c: c.currency,
    Start_Date__c: isoDay(c.start_date),
    End_Date__c: isoDay(c.end_date),
    Signed_At__c: c.signed_at,
  };
}

export const salesforce: Connector<typeof connectBody> = {
  type: 'salesforce',
  kind: 'crm',
  defaultBaseUrl: 'https://login.salesforce.com',
  connectBody,
  secretFields: ['access_token'],
  batchSize: 200,

  async test(ctx) {
    const { root, object } = cfg(ctx);
    // The object's basic information: proves the token, the instance and the object.
    const info = await call(
      ctx,
      `${root}/sobjects/${object}`,
      { headers: bearer(ctx.credentials.access_token) },
      z.object({ objectDescribe: z.object({ name: z.string() }) }),
    );
    return { ok: true, detail: `object ${info.objectDescribe.name} reachable` };
  },

  async upsert(ctx, contracts): Promise<UpsertResult> {
    const { root, object, externalId } = cfg(ctx);
    const results = await call(
      ctx,
      `${root}/composite/sobjects/${object}/${externalId}`,
      {
        method: 'PATCH',
        headers: { ...bearer(ctx.credentials.access_token), 'content-type': 'application/json' },
        body: JSON.stringify({ allOrNone: false, records: contracts.map((c) => salesforceRecord(object, externalId, c)) }),
      },
      upsertResults,
    );
    const out: UpsertResult = {};
    contracts.forEach((c, i) => {
      const r = results[i];
      if (r?.success && r.id) out[c.id] = r.id;
    });
    return out;
  },
};
