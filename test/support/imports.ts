/** Bulk imports through the HTTP API: start one (multipart), wait for its end, read its rejected rows. */
import { expect } from 'chai';
import { parse as parseCsv } from 'csv-parse/sync';
import { api } from './http';
import { testEnv } from './env';

export interface ImportBody {
  id: string;
  status: string;
  rows: { total: number; done: number; failed: number };
  files: { total: number; ingested: number; failed: number };
  terms_extracted: number;
  started_at: string;
  finished_at: string | null;
  eta_seconds: number | null;
  errors_url: string;
  error: string | null;
  detail?: string;
}

export async function postImport(
  token: string,
  records: { name: string; text: string } | null,
  files?: Buffer,
  base = testEnv().baseUrl,
): Promise<{ status: number; body: ImportBody; headers: Headers }> {
  const form = new FormData();
  if (records) form.append('records', new Blob([records.text], { type: 'text/plain' }), records.name);
  if (files) form.append('files', new Blob([files], { type: 'application/zip' }), 'agreements.zip');
  const res = await fetch(`${base}/imports`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as ImportBody, headers: res.headers };
}

/** Waits for the import's workflow to end, then reads the import through the API. */
export async function ended(token: string, id: string): Promise<ImportBody> {
  await testEnv()
    .services.temporal.workflow.getHandle(`import-${id}`)
    .result()
    .catch(() => undefined);
  const res = await api<ImportBody>('GET', `/imports/${id}`, { token });
  expect(res.status).to.equal(200);
  return res.body;
}

export async function errorsOf(token: string, id: string): Promise<Map<number, string>> {
  const res = await api('GET', `/imports/${id}/errors`, { token });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/csv/);
  const [header, ...rows]: string[][] = parseCsv(res.text);
  expect(header).to.deep.equal(['line', 'reason']);
  return new Map(rows.map(([line, reason]) => [Number(line), reason!]));
}

export const csv = (rows: string[]) => ({ name: 'contracts.csv', text: `${rows.join('\r\n')}\r\n` });
