/**
 * Google Drive (document-storage sync). Each contract's text is one plain-text file in the
 * configured folder, written with a multipart upload: POST /upload/drive/v3/files?uploadType=multipart
 * (a multipart/related body: JSON metadata, then the content), and later changes update the
 * same file with PATCH /upload/drive/v3/files/{fileId}?uploadType=multipart
 * (https://developers.google.com/drive/manage-uploads#multipart). A signed contract also gets
 * a separate signed copy (`<title> (signed).txt`), so the signed text stays apart from later
 * edits of the working copy. Files carry `appProperties.clm_contract_id` for finding them in Drive.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Connector, ConnectorContext, ContractRecord, UpsertResult } from './connector';
import { accessToken, bearer, callVendor, writeEach } from './vendor-http';

const connectBody = z.object({
  access_token: accessToken,
  folder_id: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a Drive folder id'),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
});

const folderOf = (ctx: ConnectorContext) => connectBody.omit({ access_token: true }).parse(ctx.config).folder_id;

/** The key of a contract's signed copy in upsert results and links. */
export const signedKey = (contractId: string) => `${contractId}:signed`;

/** The files a batch of contracts becomes, by upsert key: each contract, and a signed copy of a signed one. */
export function storageCopies(contracts: ContractRecord[]) {
  const byKey = new Map<string, { c: ContractRecord; signed: boolean }>();
  for (const c of contracts) {
    byKey.set(c.id, { c, signed: false });
    if (c.signed_at) byKey.set(signedKey(c.id), { c, signed: true });
  }
  return byKey;
}

/** A multipart/related body: the metadata part, then the media part (RFC 2387, as Drive documents it). */
export function multipartRelated(metadata: object, content: string, contentType = 'text/plain; charset=UTF-8') {
  const boundary = `clm-${randomBytes(12).toString('hex')}`;
  const body = [
    `--${boundary}`,
    'Content-Type: application/json; charset=UTF-8',
    '',
    JSON.stringify(metadata),
    `--${boundary}`,
    `Content-Type: ${contentType}`,
    '',
    content,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return { body, contentType: `multipart/related; boundary=${boundary}` };
}

/** The file a contract (or its signed copy) becomes in document storage: name, text and tags. */
export function fileFor(c: ContractRecord, signed: boolean) {
  const name = `${c.title}${signed ? ' (signed)' : ''}.txt`;
  const header = `${c.title}\nType: ${c.type}. Counterparty: ${c.counterparty}. Status: ${c.status}.${signed ? `\nSigned at ${c.signed_at}.` : ''}`;
  return { name, content: `${header}\n\n${c.content}`, appProperties: { clm_contract_id: c.id, clm_copy: signed ? 'signed' : 'current' } };
}

async function writeFile(ctx: ConnectorContext, fileId: string | undefined, c: ContractRecord, signed: boolean): Promise<string> {
  const f = fileFor(c, signed);
  // Parents are set on create only; an update (PATCH) moves files only through addParents.
  const metadata = fileId
    ? { name: f.name, appProperties: f.appProperties }
    : { name: f.name, mimeType: 'text/plain', parents: [folderOf(ctx)], appProperties: f.appProperties };
  const { body, contentType } = multipartRelated(metadata, f.content);
  const url = fileId
    ? `${ctx.baseUrl}/upload/drive/v3/files/${encodeURIComponent(fileId)}?uploadType=multipart`
    : `${ctx.baseUrl}/upload/drive/v3/files?uploadType=multipart`;
  const file = await callVendor(
    'google_drive',
    ctx,
    url,
    {
      method: fileId ? 'PATCH' : 'POST',
      headers: { ...bearer(ctx.credentials.access_token), 'content-type': contentType },
      body,
    },
    z.object({ id: z.string() }),
  );
  return file.id;
}

export const googleDrive: Connector<typeof connectBody> = {
  type: 'google_drive',
  kind: 'storage',
  defaultBaseUrl: 'https://www.googleapis.com',
  connectBody,
  secretFields: ['access_token'],
  batchSize: 10,

  async test(ctx) {
    const folder = await callVendor(
      'google_drive',
      ctx,
      `${ctx.baseUrl}/drive/v3/files/${encodeURIComponent(folderOf(ctx))}?fields=id,name,mimeType`,
      { headers: bearer(ctx.credentials.access_token) },
      z.object({ id: z.string(), name: z.string(), mimeType: z.string() }),
    );
    const isFolder = folder.mimeType === 'application/vnd.google-apps.folder';
    return { ok: isFolder, detail: isFolder ? `folder "${folder.name}" reachable` : `${folder.id} is not a folder` };
  },

  async upsert(ctx, contracts, known): Promise<UpsertResult> {
    const byKey = storageCopies(contracts);
    return writeEach([...byKey.keys()], (key) => {
      const { c, signed } = byKey.get(key)!;
      return writeFile(ctx, known[key], c, signed);
    });
  },
};
