/**
 * A local Google Drive API v3 for storage sync: multipart uploads
 * (POST /upload/drive/v3/files?uploadType=multipart, PATCH /upload/drive/v3/files/{id}?uploadType=multipart)
 * with a multipart/related body of JSON metadata then content, and files.get for the folder.
 * Errors use Google's shape: `{ error: { code, message, errors: [{ domain, reason, message }], status } }`.
 */
import { randomBytes } from 'node:crypto';
import { check, startFake, type FakeRequest } from './server';

const FOLDER = 'application/vnd.google-apps.folder';
const reasons: Record<number, [string, string]> = {
  400: ['badRequest', 'INVALID_ARGUMENT'],
  401: ['authError', 'UNAUTHENTICATED'],
  403: ['fieldNotWritable', 'PERMISSION_DENIED'],
  404: ['notFound', 'NOT_FOUND'],
  429: ['rateLimitExceeded', 'RESOURCE_EXHAUSTED'],
};
const googleError = (code: number, message: string) => ({
  error: {
    code,
    message,
    errors: [{ domain: code === 429 ? 'usageLimits' : 'global', reason: reasons[code]?.[0] ?? 'badRequest', message }],
    status: reasons[code]?.[1] ?? 'INVALID_ARGUMENT',
  },
});

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  appProperties: Record<string, string>;
  content: string;
  writes: number;
}

/** Splits a multipart/related body into [metadata JSON, media] as Drive expects them. */
function parseMultipart(r: FakeRequest): { metadata: Record<string, unknown>; content: string; contentType: string } {
  const m = /^multipart\/related;\s*boundary=("?)([^";]+)\1/i.exec(String(r.headers['content-type']));
  check(m, 'Content-Type must be multipart/related with a boundary');
  const parts = r.body.split(`--${m[2]}`);
  check(parts.at(-1)?.startsWith('--'), 'multipart body must end with the closing boundary');
  const inner = parts.slice(1, -1);
  check(inner.length === 2, 'multipart upload needs exactly two parts: metadata, then media');
  const split = (part: string) => {
    const at = part.indexOf('\r\n\r\n');
    check(at >= 0, 'each part needs headers and a blank line');
    return { headers: part.slice(0, at).toLowerCase(), body: part.slice(at + 4).replace(/\r\n$/, '') };
  };
  const [meta, media] = inner.map(split) as [ReturnType<typeof split>, ReturnType<typeof split>];
  check(meta.headers.includes('content-type: application/json'), 'the first part must be application/json metadata');
  const contentType = /content-type:\s*([^\r\n;]+)/.exec(media.headers)?.[1];
  check(contentType, 'the media part needs a Content-Type');
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(meta.body) as Record<string, unknown>;
  } catch {
    throw new Error('metadata part is not valid JSON');
  }
  return { metadata, content: media.body, contentType };
}

export async function startDriveFake(opts: { token: string; folderId: string }) {
  const files = new Map<string, DriveFile>();
  const isUpload = (r: FakeRequest) => r.path.startsWith('/upload/drive/v3/files');
  const fake = await startFake({
    token: opts.token,
    error: googleError,
    isWrite: isUpload,
    handle(r) {
      if (r.method === 'GET' && r.path === `/drive/v3/files/${opts.folderId}`) {
        return { status: 200, body: { id: opts.folderId, name: 'Contracts', mimeType: FOLDER } };
      }
      if (!isUpload(r)) return { status: 404, body: googleError(404, `File not found: ${r.path}.`) };
      check(r.query.get('uploadType') === 'multipart', 'uploadType must be multipart');
      const { metadata, content, contentType } = parseMultipart(r);
      const appProperties = (metadata.appProperties ?? {}) as Record<string, string>;
      if (r.method === 'POST' && r.path === '/upload/drive/v3/files') {
        const parents = metadata.parents;
        check(Array.isArray(parents) && parents.length === 1 && parents[0] === opts.folderId, 'parents must name the folder');
        check(typeof metadata.name === 'string', 'name: required');
        const file: DriveFile = {
          id: randomBytes(16).toString('base64url'),
          name: metadata.name,
          mimeType: contentType,
          parents: parents as string[],
          appProperties,
          content,
          writes: 1,
        };
        files.set(file.id, file);
        return { status: 200, body: { kind: 'drive#file', id: file.id, name: file.name, mimeType: file.mimeType } };
      }
      const m = /^\/upload\/drive\/v3\/files\/([\w-]+)$/.exec(r.path);
      if (r.method !== 'PATCH' || !m) return { status: 404, body: googleError(404, 'Not Found') };
      const file = files.get(m[1]!);
      if (!file) return { status: 404, body: googleError(404, `File not found: ${m[1]}.`) };
      if ('parents' in metadata) {
        return {
          status: 403,
          body: googleError(
            403,
            'The parents field is not directly writable in update requests. Use the addParents and removeParents parameters instead.',
          ),
        };
      }
      Object.assign(file, {
        name: (metadata.name as string | undefined) ?? file.name,
        appProperties: { ...file.appProperties, ...appProperties },
        content,
        mimeType: contentType,
        writes: file.writes + 1,
      });
      return { status: 200, body: { kind: 'drive#file', id: file.id, name: file.name, mimeType: file.mimeType } };
    },
  });
  /** Files per `clm_contract_id` and copy ('current' or 'signed'). */
  const byContract = () => {
    const out = new Map<string, DriveFile[]>();
    for (const f of files.values()) {
      const key = `${f.appProperties.clm_contract_id}:${f.appProperties.clm_copy}`;
      out.set(key, [...(out.get(key) ?? []), f]);
    }
    return out;
  };
  return { ...fake, files, byContract, uploads: () => fake.requests.filter(isUpload) };
}
