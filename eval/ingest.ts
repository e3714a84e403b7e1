/** Ingestion of an evaluation set through the HTTP API, shared by eval/run.ts and eval/fit-retrieval.ts. */
import { testEnv } from '../test/support/env';
import type { TestUser } from '../test/support/auth';
import { api } from '../test/support/http';
import { settled } from '../test/support/documents';
import { filledFile, type CorpusDocument } from './corpus';

async function uploadDocument(user: TestUser, doc: CorpusDocument, contractId: string, dir?: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await filledFile(doc, dir))]), doc.file);
  form.append('category', 'contract');
  form.append('contract_id', contractId);
  const res = await fetch(`${testEnv().baseUrl}/documents/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  });
  const body = (await res.json()) as { id?: string; detail?: string };
  if (res.status !== 201 || !body.id) throw new Error(`upload ${doc.file}: ${res.status} ${body.detail ?? ''}`);
  const ready = await settled(user.token, body.id);
  if (ready.status !== 'ready') throw new Error(`ingestion of ${doc.file}: ${ready.status} ${ready.error ?? ''}`);
  return body.id;
}

export /** Creates a contract per document, ingests each (one at a time: the worker embeds them anyway, and the machine is shared). */
async function ingest(user: TestUser, documents: readonly CorpusDocument[], dir?: string): Promise<Map<CorpusDocument, string>> {
  const contracts = new Map<CorpusDocument, string>();
  for (const doc of documents) {
    const created = await api<{ id: string }>('POST', '/contracts', { token: user.token, body: doc.contract });
    if (created.status !== 201) throw new Error(`contract for ${doc.file}: ${created.status} ${created.text}`);
    contracts.set(doc, created.body.id);
  }
  for (const doc of documents) await uploadDocument(user, doc, contracts.get(doc)!, dir);
  return contracts;
}
