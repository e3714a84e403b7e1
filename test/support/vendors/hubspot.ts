/**
 * A local HubSpot CRM API for deal sync: POST /crm/v3/objects/deals/batch/upsert (up to 100
 * inputs, each `{ idProperty, id, properties }`, the idProperty a unique deal property) and
 * GET /crm/v3/objects/deals. Errors use HubSpot's shape: `{ status: "error", message, correlationId, category }`.
 */
import { randomUUID } from 'node:crypto';
import { check, jsonBody, startFake, type FakeRequest } from './server';

const STAGES = new Set([
  'appointmentscheduled',
  'qualifiedtobuy',
  'presentationscheduled',
  'decisionmakerboughtin',
  'contractsent',
  'closedwon',
  'closedlost',
]);
const UPSERT = '/crm/v3/objects/deals/batch/upsert';

export async function startHubspotFake(opts: { token: string; uniqueProperty: string }) {
  const deals = new Map<string, { id: string; properties: Record<string, string>; writes: number }>();
  let nextId = 1000;
  const isUpsert = (r: FakeRequest) => r.method === 'POST' && r.path === UPSERT;
  const category = (status: number) => (status === 401 ? 'INVALID_AUTHENTICATION' : status === 429 ? 'RATE_LIMITS' : 'VALIDATION_ERROR');
  const fake = await startFake({
    token: opts.token,
    error: (status, message) => ({
      status: 'error',
      message,
      correlationId: randomUUID(),
      category: category(status),
      ...(status === 429 ? { errorType: 'RATE_LIMIT', policyName: 'SECONDLY' } : {}),
    }),
    isWrite: isUpsert,
    handle(r) {
      if (r.method === 'GET' && r.path === '/crm/v3/objects/deals') {
        return {
          status: 200,
          body: {
            results: [...deals.values()]
              .slice(0, Number(r.query.get('limit') ?? 10))
              .map((d) => ({ id: d.id, properties: d.properties, archived: false })),
          },
        };
      }
      if (!isUpsert(r))
        return {
          status: 404,
          body: { status: 'error', message: 'Resource not found', correlationId: randomUUID(), category: 'OBJECT_NOT_FOUND' },
        };
      const body = jsonBody(r) as { inputs?: unknown };
      check(Array.isArray(body.inputs) && body.inputs.length > 0, 'inputs: required');
      const inputs = body.inputs as Array<{ idProperty?: unknown; id?: unknown; properties?: Record<string, unknown> }>;
      check(inputs.length <= 100, 'Batch input limit of 100 exceeded');
      const startedAt = new Date().toISOString();
      for (const i of inputs) {
        check(i.idProperty === opts.uniqueProperty, `idProperty must be a unique property (${opts.uniqueProperty})`);
        check(typeof i.id === 'string' && i.id !== '', 'id: required');
        check(i.properties && typeof i.properties === 'object', 'properties: required');
        for (const [k, v] of Object.entries(i.properties)) check(typeof v === 'string', `Property values must be strings (${k})`);
        const stage = i.properties.dealstage;
        check(stage === undefined || STAGES.has(stage as string), `${String(stage)} is not a valid deal stage`);
      }
      const results = inputs.map((i) => {
        const key = i.id as string;
        const found = deals.get(key);
        const id = found?.id ?? String(nextId++);
        const properties = {
          ...found?.properties,
          ...(i.properties as Record<string, string>),
          [opts.uniqueProperty]: key,
          hs_object_id: id,
        };
        deals.set(key, { id, properties, writes: (found?.writes ?? 0) + 1 });
        return { id, properties, createdAt: startedAt, updatedAt: startedAt, archived: false, new: !found };
      });
      return { status: 200, body: { status: 'COMPLETE', results, startedAt, completedAt: new Date().toISOString() } };
    },
  });
  return { ...fake, deals, upsertCalls: () => fake.requests.filter(isUpsert) };
}
