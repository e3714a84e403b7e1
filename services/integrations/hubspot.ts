/**
 * HubSpot (CRM deal tracking). Deals are upserted by a unique property holding the
 * contract id: POST /crm/v3/objects/deals/batch/upsert with
 * `{ inputs: [{ idProperty, id, properties }] }`, at most 100 inputs per call
 * (https://developers.hubspot.com/docs/api-reference/2026-03/crm/objects/deals/batch/upsert-deals.md).
 * Authenticated with a private app's access token as a Bearer token.
 */
import { z } from 'zod';
import type { Connector, ContractRecord, UpsertResult } from './connector';
import { accessToken, bearer, callVendor, isoDay } from './vendor-http';

const connectBody = z.object({
  access_token: accessToken,
  /** A deal property created with `hasUniqueValue: true`; it holds the contract id. */
  id_property: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,99}$/, 'must be a HubSpot property name')
    .default('clm_contract_id'),
  pipeline: z.string().min(1).default('default'),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
});

/** Contract status → a stage of HubSpot's default sales pipeline. */
export const HUBSPOT_STAGES: Record<string, string> = {
  draft: 'contractsent',
  active: 'closedwon',
  completed: 'closedwon',
  expired: 'closedlost',
};

export function hubspotDeal(idProperty: string, pipeline: string, c: ContractRecord) {
  const close = c.signed_at ?? c.end_date;
  return {
    idProperty,
    id: c.id,
    properties: {
      [idProperty]: c.id,
      dealname: c.title,
      amount: c.value === null ? '' : String(c.value),
      deal_currency_code: c.currency,
      dealstage: HUBSPOT_STAGES[c.status] ?? 'contractsent',
      pipeline,
      closedate: close ? `${isoDay(close)}T00:00:00.000Z` : '',
    },
  };
}

/** The documented batch answer (only what is read). */
const batchResponse = z.object({
  status: z.string(),
  results: z.array(z.object({ id: z.string(), properties: z.record(z.string(), z.string().nullable()) })),
});

export const hubspot: Connector<typeof connectBody> = {
  type: 'hubspot',
  kind: 'crm',
  defaultBaseUrl: 'https://api.hubapi.com',
  connectBody,
  secretFields: ['access_token'],
  batchSize: 100,

  async test(ctx) {
    await callVendor(
      'hubspot',
      ctx,
      `${ctx.baseUrl}/crm/v3/objects/deals?limit=1`,
      { headers: bearer(ctx.credentials.access_token) },
      z.object({ results: z.array(z.unknown()) }),
    );
    return { ok: true, detail: 'deals readable' };
  },

  async upsert(ctx, contracts): Promise<UpsertResult> {
    const { id_property: idProperty, pipeline } = connectBody.omit({ access_token: true }).parse(ctx.config);
    const res = await callVendor(
      'hubspot',
      ctx,
      `${ctx.baseUrl}/crm/v3/objects/deals/batch/upsert`,
      {
        method: 'POST',
        headers: { ...bearer(ctx.credentials.access_token), 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: contracts.map((c) => hubspotDeal(idProperty, pipeline, c)) }),
      },
      batchResponse,
    );
    const out: UpsertResult = {};
    for (const r of res.results) {
      const contractId = r.properties[idProperty];
      if (contractId) out[contractId] = r.id;
    }
    return out;
  },
};
