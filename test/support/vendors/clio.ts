/**
 * A local Clio Manage API v4 for storage sync, as its reference documents the calls:
 * GET /api/v4/users/who_am_i.json, GET /api/v4/matters/{id}.json, and the three-step upload:
 * POST /api/v4/documents.json (`{ data: { name, parent: { id, type: "Matter" | "Document" } } }`,
 * a Document parent adding a version), PUT of the bytes to the version's presigned `put_url`
 * with its `put_headers` (here a /storage path of this server, authorized by its signature, never
 * by a Bearer token), and PATCH /api/v4/documents/{id}.json with `{ data: { uuid, fully_uploaded: true } }`.
 * Only the `fields` asked for are answered (Clio's default is id and etag). Errors use Clio's
 * shape: `{ error: { type, message } }`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { check, jsonBody, startFake, type FakeRequest } from './server';

const types: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  422: 'UnprocessableEntity',
  429: 'RateLimited',
};
const clioError = (status: number, message: string) => ({ error: { type: types[status] ?? 'BadRequest', message } });
const notFound = (what: string) => ({ status: 404, body: clioError(404, `${what} not found`) });
const unprocessable = (message: string) => ({ status: 422, body: clioError(422, message) });

const DOCUMENTS = '/api/v4/documents.json';
const DOCUMENT = /^\/api\/v4\/documents\/(\d+)\.json$/;
const MATTER = /^\/api\/v4\/matters\/(\d+)\.json$/;
const STORAGE = /^\/storage\/([\w-]+)$/;
const UPLOAD_FIELDS = 'latest_document_version{uuid,put_url,put_headers}';

export interface ClioVersion {
  uuid: string;
  contentType: string;
  signature: string;
  /** The bytes PUT to the presigned URL, once they arrived. */
  content: string | null;
  fully_uploaded: boolean;
}

export interface ClioDocument {
  id: number;
  name: string;
  matterId: number;
  external: Record<string, string>;
  versions: ClioVersion[];
}

export async function startClioFake(opts: { token: string; matterId: number }) {
  const documents = new Map<number, ClioDocument>();
  const byUuid = new Map<string, ClioVersion>();
  let nextId = 5000;
  const isApiWrite = (r: FakeRequest) => (r.method === 'POST' && r.path === DOCUMENTS) || (r.method === 'PATCH' && DOCUMENT.test(r.path));
  const isStorage = (r: FakeRequest) => STORAGE.test(r.path);
  let base = '';

  /** `data` of a document answer: id and etag, plus what `fields` asked for. */
  function shown(r: FakeRequest, doc: ClioDocument) {
    const fields = r.query.get('fields') ?? '';
    const out: Record<string, unknown> = { id: doc.id, etag: `"${doc.versions.length}"` };
    if (fields.split(',').includes('name')) out.name = doc.name;
    if (fields.includes(UPLOAD_FIELDS)) {
      const v = doc.versions.at(-1)!;
      out.latest_document_version = {
        uuid: v.uuid,
        put_url: `${base}/storage/${v.uuid}?X-Amz-Expires=3600&X-Amz-Signature=${v.signature}`,
        put_headers: [
          { name: 'Content-Type', value: v.contentType },
          { name: 'x-amz-server-side-encryption', value: 'AES256' },
        ],
      };
    }
    return out;
  }

  const fake = await startFake({
    token: opts.token,
    error: clioError,
    isWrite: isApiWrite,
    presigned: isStorage,
    handle(r) {
      if (r.method === 'GET' && r.path === '/api/v4/users/who_am_i.json') {
        return {
          status: 200,
          body: { data: { id: 344, ...(r.query.get('fields')?.includes('name') ? { name: 'Alex Counsel' } : {}), etag: '"1"' } },
        };
      }
      const matter = MATTER.exec(r.path);
      if (r.method === 'GET' && matter) {
        if (Number(matter[1]) !== opts.matterId) return notFound('Matter');
        return { status: 200, body: { data: { id: opts.matterId, display_number: '00042-Acme', etag: '"1"' } } };
      }

      const storage = STORAGE.exec(r.path);
      if (storage) {
        const v = byUuid.get(storage[1]!);
        check(r.method === 'PUT', 'presigned URL allows PUT only');
        if (!v || r.query.get('X-Amz-Signature') !== v.signature) return { status: 403, body: clioError(403, 'SignatureDoesNotMatch') };
        check(r.headers.authorization === undefined, 'Only one auth mechanism allowed; the presigned URL carries it');
        check(r.headers['content-type'] === v.contentType, `Content-Type must be ${v.contentType}, as signed`);
        check(r.headers['x-amz-server-side-encryption'] === 'AES256', 'x-amz-server-side-encryption must be AES256, as signed');
        v.content = r.body;
        return { status: 200 };
      }

      if (r.method === 'POST' && r.path === DOCUMENTS) {
        const { data } = jsonBody(r) as { data?: Record<string, unknown> };
        check(data && typeof data === 'object', 'data: required');
        check(typeof data.name === 'string' && data.name !== '', 'name: required');
        const parent = data.parent as { id?: unknown; type?: unknown } | undefined;
        check(parent && typeof parent.id === 'number' && typeof parent.type === 'string', 'parent: id (integer) and type required');
        const version: ClioVersion = {
          uuid: randomUUID(),
          contentType: typeof data.content_type === 'string' ? data.content_type : 'application/octet-stream',
          signature: randomBytes(16).toString('hex'),
          content: null,
          fully_uploaded: false,
        };
        let doc: ClioDocument;
        if (parent.type === 'Matter') {
          if (parent.id !== opts.matterId) return notFound('Matter');
          const external = data.external_properties ?? [];
          check(
            Array.isArray(external) &&
              external.every((p: { name?: unknown; value?: unknown }) => typeof p.name === 'string' && typeof p.value === 'string'),
            'external_properties: each needs name and value',
          );
          doc = {
            id: nextId++,
            name: data.name,
            matterId: opts.matterId,
            external: Object.fromEntries((external as Array<{ name: string; value: string }>).map((p) => [p.name, p.value])),
            versions: [],
          };
          documents.set(doc.id, doc);
        } else if (parent.type === 'Document') {
          const found = documents.get(parent.id);
          if (!found) return notFound('Document');
          doc = found;
        } else {
          return unprocessable('parent type must be one of Document, Folder, Contact, Matter');
        }
        doc.versions.push(version);
        byUuid.set(version.uuid, version);
        return { status: 201, body: { data: shown(r, doc) } };
      }

      const one = DOCUMENT.exec(r.path);
      if (r.method === 'PATCH' && one) {
        const doc = documents.get(Number(one[1]));
        if (!doc) return notFound('Document');
        const { data } = jsonBody(r) as { data?: Record<string, unknown> };
        check(data && typeof data === 'object', 'data: required');
        if (data.fully_uploaded !== undefined) {
          check(data.fully_uploaded === true, 'fully_uploaded must be true');
          const v = doc.versions.find((x) => x.uuid === data.uuid);
          if (!v) return unprocessable('uuid is required to mark a document fully uploaded, and must name a version of it');
          if (v.content === null) return unprocessable('The file is not successfully uploaded');
          if (v.fully_uploaded) return unprocessable('The document is already marked as fully uploaded');
          v.fully_uploaded = true;
        }
        if (data.name !== undefined) {
          check(typeof data.name === 'string' && data.name !== '', 'name must not be empty');
          doc.name = data.name;
        }
        return { status: 200, body: { data: shown(r, doc) } };
      }
      return notFound('Resource');
    },
  });
  base = fake.url;

  /** Documents per `clm_contract_id` and copy ('current' or 'signed'). */
  const byContract = () => {
    const out = new Map<string, ClioDocument[]>();
    for (const d of documents.values()) {
      const key = `${d.external.clm_contract_id}:${d.external.clm_copy}`;
      out.set(key, [...(out.get(key) ?? []), d]);
    }
    return out;
  };
  return { ...fake, documents, byContract, documentWrites: () => fake.requests.filter((r) => r.method === 'POST' && r.path === DOCUMENTS) };
}
