/**
 * A local Salesforce REST API for the CRM sync: sObject Collections upsert
 * (PATCH /services/data/vXX.X/composite/sobjects/{SObject}/{ExternalIdField}, up to 200
 * records, each with attributes.type and the external id, no Id) and the sObject basic
 * information GET. Errors use Salesforce's shape: `[{ message, errorCode }]`.
 */
import { randomBytes } from 'node:crypto';
import { check, jsonBody, startFake, type FakeRequest } from './server';

const UPSERT = /^\/services\/data\/v\d+\.\d+\/composite\/sobjects\/(\w+)\/(\w+)$/;
const BASIC = /^\/services\/data\/v\d+\.\d+\/sobjects\/(\w+)$/;

export async function startSalesforceFake(opts: { token: string; object: string; externalIdField: string }) {
  /** External id → the stored record and how often it was written. */
  const records = new Map<string, { id: string; fields: Record<string, unknown>; writes: number }>();
  // Salesforce reports API request limits as 403 REQUEST_LIMIT_EXCEEDED; the shared 429 case uses the same code.
  const errorCode = (status: number) =>
    status === 401
      ? 'INVALID_SESSION_ID'
      : status === 403 || status === 429
        ? 'REQUEST_LIMIT_EXCEEDED'
        : status === 404
          ? 'NOT_FOUND'
          : 'INVALID_FIELD';
  const isUpsert = (r: FakeRequest) => r.method === 'PATCH' && UPSERT.test(r.path);
  const fake = await startFake({
    token: opts.token,
    error: (status, message) => [{ message, errorCode: errorCode(status) }],
    isWrite: isUpsert,
    handle(r) {
      const basic = BASIC.exec(r.path);
      if (r.method === 'GET' && basic) {
        if (basic[1] !== opts.object)
          return { status: 404, body: [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }] };
        return {
          status: 200,
          body: { objectDescribe: { name: opts.object, custom: true, createable: true, updateable: true }, recentItems: [] },
        };
      }
      const m = UPSERT.exec(r.path);
      if (!m || r.method !== 'PATCH')
        return { status: 404, body: [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }] };
      check(m[1] === opts.object, `sObject type '${m[1]}' is not supported`);
      check(m[2] === opts.externalIdField, `${m[2]} is not an External ID field`);
      const body = jsonBody(r) as { allOrNone?: unknown; records?: unknown };
      check(body.allOrNone === undefined || typeof body.allOrNone === 'boolean', 'allOrNone must be a boolean');
      check(Array.isArray(body.records) && body.records.length > 0, 'records: required');
      const list = body.records as Array<Record<string, unknown>>;
      check(list.length <= 200, 'EXCEEDED_ID_LIMIT: record limit reached. cannot submit more than 200 records into this call');
      for (const rec of list) {
        check(
          (rec.attributes as { type?: unknown } | undefined)?.type === opts.object,
          "each record needs attributes.type of the URI's sObject",
        );
        check(!('Id' in rec) && !('id' in rec), "Don't set the id field; use the external ID field");
        check(typeof rec[opts.externalIdField] === 'string' && rec[opts.externalIdField] !== '', `${opts.externalIdField}: required`);
      }
      return {
        status: 200,
        body: list.map((rec) => {
          const key = rec[opts.externalIdField] as string;
          const { attributes: _attributes, ...fields } = rec;
          const found = records.get(key);
          const id = found?.id ?? `a0${randomBytes(8).toString('hex').slice(0, 16)}`;
          records.set(key, { id, fields, writes: (found?.writes ?? 0) + 1 });
          return { id, success: true, errors: [], created: !found };
        }),
      };
    },
  });
  return { ...fake, records, upsertCalls: () => fake.requests.filter(isUpsert) };
}
