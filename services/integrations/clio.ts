/**
 * Clio Manage (legal practice management). Each contract is one document under the configured
 * matter, written through API v4's three-step upload
 * (https://docs.developers.clio.com/api-reference/ Documents, "Create a Document, or Create
 * Document Version to an existing Document"):
 *   1. POST /api/v4/documents.json?fields=id,latest_document_version{uuid,put_url,put_headers}
 *      with `{ data: { name, parent: { id, type } } }`: parent `Matter` creates the document,
 *      parent `Document` (the earlier document's id) adds a new version to it;
 *   2. PUT the bytes to the version's presigned `put_url` with its `put_headers` (a storage
 *      host, not Clio's API: no Bearer token);
 *   3. PATCH /api/v4/documents/{id}.json with `{ data: { uuid, fully_uploaded: true } }`.
 * So a later change of a contract is a new version of the same document. A signed contract
 * also gets a separate signed copy, as in Google Drive. Clio serves four regions
 * (app.clio.com, eu.app.clio.com, ca.app.clio.com, au.app.clio.com): `base_url` picks one.
 */
import { z } from 'zod';
import type { Connector, ConnectorContext, ContractRecord } from './connector';
import { vendorError } from './context';
import { accessToken, bearer, callVendor, writeEach } from './vendor-http';
import { fileFor, storageCopies } from './google-drive';

const connectBody = z.object({
  access_token: accessToken,
  matter_id: z.number('must be a Clio matter id').int('must be a Clio matter id').positive('must be a Clio matter id'),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
});

const matterOf = (ctx: ConnectorContext) => connectBody.omit({ access_token: true }).parse(ctx.config).matter_id;
const api = (ctx: ConnectorContext) => `${ctx.baseUrl}/api/v4`;
/** Clio answers only `id` and `etag` unless asked for more fields. */
const UPLOAD_FIELDS = 'id,latest_document_version{uuid,put_url,put_headers}';

const uploadTarget = z.object({
  data: z.object({
    id: z.number(),
    latest_document_version: z.object({
      uuid: z.string().min(1),
      put_url: z.url(),
      put_headers: z.array(z.object({ name: z.string(), value: z.string() })),
    }),
  }),
});

const json = (ctx: ConnectorContext) => ({ ...bearer(ctx.credentials.access_token), 'content-type': 'application/json' });

/**
 * Writes one document (a new one, or a new version of `documentId`); reports the document's
 * id through `created` once it exists, so a failure of a later step keeps it.
 */
async function writeDocument(
  ctx: ConnectorContext,
  documentId: string | undefined,
  c: ContractRecord,
  signed: boolean,
  created: (id: string) => void,
): Promise<string> {
  const f = fileFor(c, signed);
  const parent = documentId ? { id: Number(documentId), type: 'Document' } : { id: matterOf(ctx), type: 'Matter' };
  // External properties tag the document with its contract (set once, on the document).
  const tags = documentId ? {} : { external_properties: Object.entries(f.appProperties).map(([name, value]) => ({ name, value })) };
  const target = await callVendor(
    'clio',
    ctx,
    `${api(ctx)}/documents.json?fields=${encodeURIComponent(UPLOAD_FIELDS)}`,
    {
      method: 'POST',
      headers: json(ctx),
      body: JSON.stringify({ data: { name: f.name, content_type: 'text/plain', parent, ...tags } }),
    },
    uploadTarget,
  );
  const id = String(target.data.id);
  created(id);

  const version = target.data.latest_document_version;
  const stored = await ctx.fetch(version.put_url, {
    method: 'PUT',
    headers: Object.fromEntries(version.put_headers.map((h) => [h.name, h.value])),
    body: f.content,
  });
  if (!stored.ok) throw await vendorError('clio', stored);

  // The name goes with the completion too: a renamed contract renames its document.
  await callVendor(
    'clio',
    ctx,
    `${api(ctx)}/documents/${id}.json`,
    {
      method: 'PATCH',
      headers: json(ctx),
      body: JSON.stringify({ data: { uuid: version.uuid, fully_uploaded: true, name: f.name } }),
    },
    z.object({ data: z.object({ id: z.number() }) }),
  );
  return id;
}

export const clio: Connector<typeof connectBody> = {
  type: 'clio',
  kind: 'storage',
  defaultBaseUrl: 'https://app.clio.com',
  connectBody,
  secretFields: ['access_token'],
  batchSize: 10,

  async test(ctx) {
    const headers = bearer(ctx.credentials.access_token);
    const me = await callVendor(
      'clio',
      ctx,
      `${api(ctx)}/users/who_am_i.json?fields=id,name`,
      { headers },
      z.object({ data: z.object({ id: z.number(), name: z.string() }) }),
    );
    const matter = await callVendor(
      'clio',
      ctx,
      `${api(ctx)}/matters/${matterOf(ctx)}.json?fields=id,display_number`,
      { headers },
      z.object({ data: z.object({ id: z.number(), display_number: z.string() }) }),
    );
    return { ok: true, detail: `matter ${matter.data.display_number} reachable as ${me.data.name}` };
  },

  async upsert(ctx, contracts, known) {
    const byKey = storageCopies(contracts);
    return writeEach([...byKey.keys()], (key, created) => {
      const { c, signed } = byKey.get(key)!;
      return writeDocument(ctx, known[key], c, signed, created);
    });
  },
};
