import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { api } from '../../support/http';
import { signUp } from '../../support/auth';
import { testEnv } from '../../support/env';
import { createDocumentActivities } from '../../../activities/documents';
import { Document } from '../../../models/document';
import { INGEST_BATCH } from '../../../workflows/document-ingestion.shared';

interface Progress {
  status: string;
  chunk_count: number;
  progress: { chunks_done: number; chunks_total: number | null };
}

/** Numbered clauses of distinct sentences. */
const clauses = (count: number) =>
  Array.from({ length: count }, (_, i) => {
    const sentences = Array.from(
      { length: 8 },
      (_, j) => `The supplier shall deliver item ${i}-${j} within ${i + j + 2} days of the order.`,
    );
    return `${i + 1}. Clause ${i + 1}\n${sentences.join(' ')}\n`;
  }).join('\n');

/**
 * A long ingestion shows how far it has come: the ingestion steps run one by one here (as
 * the workflow runs them), and GET /documents/:id is read between them.
 */
describe('ingestion progress', function () {
  this.timeout(180000);

  it('GET /documents/:id shows chunks done of the total as batches are indexed, then all of them', async () => {
    const user = await signUp();
    const dir = path.resolve(testEnv().config.UPLOAD_DIR);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `progress-${Date.now()}.txt`);
    writeFileSync(file, clauses(140));
    // The record an upload makes; its steps run below instead of in an ingestion workflow.
    const doc = await Document.create({
      organization_id: user.organizationId,
      filename: 'Long supply terms.txt',
      size_bytes: 1,
      mime_type: 'text/plain',
      category: 'other',
      uploaded_by: user.user.id,
      storage_path: file,
    });
    const documentId = doc.id;
    const read = async () => {
      const res = await api<Progress>('GET', `/documents/${documentId}`, { token: user.token });
      expect(res.status).to.equal(200);
      return res.body;
    };
    expect((await read()).progress).to.deep.equal({ chunks_done: 0, chunks_total: null });

    const activities = createDocumentActivities(testEnv().services);
    // run() does not infer its result type.
    const inActivity = <R>(step: () => Promise<R>) => new MockActivityEnvironment().run<[], R, () => Promise<R>>(step);
    const prepared = await inActivity(() => activities.extractDocument({ documentId }));
    if (!prepared) throw new Error('the document is gone');
    const total = prepared.chunkCount;
    // More than one batch: one is indexed, then the rest.
    expect(total).to.be.within(INGEST_BATCH + 1, 2 * INGEST_BATCH);
    expect(await read()).to.deep.include({ status: 'processing', progress: { chunks_done: 0, chunks_total: total } });

    const indexBatch = (from: number) => inActivity(() => activities.indexDocumentChunks({ documentId, from, batches: 1 }));
    expect(await indexBatch(0)).to.equal(INGEST_BATCH);
    expect((await read()).progress).to.deep.equal({ chunks_done: INGEST_BATCH, chunks_total: total });
    expect(await indexBatch(INGEST_BATCH)).to.equal(total - INGEST_BATCH);
    expect((await read()).progress).to.deep.equal({ chunks_done: total, chunks_total: total });
    // A retried span does not take back what was shown.
    await indexBatch(0);
    expect((await read()).progress.chunks_done).to.equal(total);

    await inActivity(() => activities.finishDocument({ documentId, ...prepared }));
    expect(await read()).to.deep.include({
      status: 'ready',
      chunk_count: total,
      progress: { chunks_done: total, chunks_total: total },
    });
  });
});
