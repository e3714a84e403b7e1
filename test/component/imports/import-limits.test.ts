/**
 * What one import may write and hold: each file of its ZIP taken out once, its files' inflated
 * bytes capped, the disk's reserve kept, and a bounded number of running imports per
 * organization (SECURITY.md, Imports).
 */
import { expect } from 'chai';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Types } from 'mongoose';
import { api } from '../../support/http';
import { testEnv, withSecondApi } from '../../support/env';
import { signUp, type TestUser } from '../../support/auth';
import { makePdf } from '../../support/documents';
import { writeZip } from '../../support/bombs';
import { waitFor } from '../../support/processes';
import { csv, ended, errorsOf, postImport, type ImportBody } from '../../support/imports';
import { freeBytes } from '../../../platform/disk';
import { createOffloadPool } from '../../../platform/offload';
import { Document } from '../../../models/document';
import { Import, ImportSlot } from '../../../models/import';

const TB = 1024 ** 4;

/** The files the import took out of its ZIP into UPLOAD_DIR, with their sizes. */
async function extracted(importId: string): Promise<Array<{ name: string; size: number }>> {
  const dir = path.resolve(testEnv().config.UPLOAD_DIR);
  const names = (await readdir(dir)).filter((n) => n.startsWith(`import-${importId}-`));
  return Promise.all(names.map(async (name) => ({ name, size: (await stat(path.join(dir, name))).size })));
}

/** A CSV of `count` contracts, none naming a file: many batches of work to keep an import running. */
const plainRows = (count: number, label: string) =>
  csv(['title,type,counterparty', ...Array.from({ length: count }, (_, i) => `${label} ${i},nda,Party ${i}`)]);

describe('import limits', function () {
  // The machine is shared: ingesting even small files takes a while under load.
  this.timeout(600_000);
  let owner: TestUser;

  before(async () => {
    owner = await signUp();
  });

  it('takes a file that 500 rows name out of the ZIP once: the first row gets it, every later row is rejected naming that line', async () => {
    const pdf = await makePdf([['Master services agreement between Acme and Globex.']]);
    const rows = ['title,type,counterparty,file', ...Array.from({ length: 500 }, (_, i) => `Same file ${i},nda,Party ${i},shared/msa.pdf`)];
    let id = '';
    // Batches of 100: later batches meet the file an earlier batch took.
    await withSecondApi({ IMPORT_BATCH_ROWS: 100 }, async (base) => {
      const started = await postImport(owner.token, csv(rows), writeZip([{ name: 'shared/msa.pdf', data: pdf }]), base);
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      id = started.body.id;
    });
    // Once every row is through, what is on disk and in the store is what the rows took.
    const progress = async () => (await api<ImportBody>('GET', `/imports/${id}`, { token: owner.token })).body;
    await waitFor(
      async () => {
        const { status, rows } = await progress();
        return status !== 'running' || rows.done + rows.failed === 500;
      },
      300_000,
      'every row of the import',
    );
    const files = await extracted(id);
    expect(files.map((f) => f.name)).to.deep.equal([`import-${id}-2`]);
    expect(files[0]!.size).to.equal(pdf.length);
    const documents = await Document.find({ import_id: new Types.ObjectId(id) }).lean();
    expect(documents.map((d) => d.filename)).to.deep.equal(['msa.pdf']);

    const done = await ended(owner.token, id);
    expect(done.status, done.error ?? '').to.equal('completed');
    expect(done.rows).to.deep.equal({ total: 500, done: 1, failed: 499 });
    expect(done.files).to.deep.equal({ total: 500, ingested: 1, failed: 499 });
    expect((await Document.findById(documents[0]!._id).lean())?.status).to.equal('ready');

    const errors = await errorsOf(owner.token, id);
    expect(errors.size).to.equal(499);
    expect(errors.get(3)).to.equal('file "shared/msa.pdf": line 2 names the same file, and each file of the ZIP is imported once');
    expect(errors.get(501)).to.equal(errors.get(3));
    const { services } = testEnv();
    const { count } = await services.temporal.workflowService.countWorkflowExecutions({
      namespace: testEnv().config.TEMPORAL_NAMESPACE,
      query: `OrganizationId = "${owner.organizationId}" AND RecordKind = "document-ingestion"`,
    });
    expect(Number(count), 'ingestions started').to.equal(1);
  });

  it('fails an import whose files would inflate past its cap, with that reason, having written no more than the cap', async () => {
    const org = await signUp();
    const pdf = await makePdf([['A short agreement.']]);
    const entries = Array.from({ length: 5 }, (_, i) => ({ name: `files/${i}.pdf`, data: pdf }));
    const rows = ['title,type,counterparty,file', ...entries.map((e, i) => `Capped ${i},nda,Party ${i},${e.name}`)];
    const cap = Math.floor(2.5 * pdf.length);
    let id = '';
    // One row a batch: two files fit under the cap, the third would not.
    await withSecondApi({ IMPORT_BATCH_ROWS: 1, IMPORT_MAX_INFLATED_BYTES: cap }, async (base) => {
      const started = await postImport(org.token, csv(rows), writeZip(entries), base);
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      id = started.body.id;
    });
    const done = await ended(org.token, id);
    expect(done.status).to.equal('failed');
    expect(done.error).to.match(
      /^the files of the ZIP inflate to more than the \d+ bytes an import may take out \(IMPORT_MAX_INFLATED_BYTES\)/,
    );
    expect(done.rows.done).to.equal(2);

    const files = await extracted(id);
    expect(files.map((f) => f.name).sort()).to.deep.equal([`import-${id}-2`, `import-${id}-3`]);
    expect(files.reduce((sum, f) => sum + f.size, 0)).to.be.at.most(cap);
    const feed = await api<{ activities: Array<{ type: string; summary: string }> }>('GET', '/analytics/activity?type=import', {
      token: org.token,
    });
    expect(feed.body.activities.map((a) => a.type)).to.deep.equal(['import.failed']);
    expect(feed.body.activities[0]!.summary).to.match(/IMPORT_MAX_INFLATED_BYTES/);
  });

  it('answers 507 before receiving an upload that would leave the disk less than its reserve, and keeps nothing', async () => {
    const count = async () => (await api<{ total: number }>('GET', '/imports', { token: owner.token })).body.total;
    const before = await count();
    const reserve = (await freeBytes(path.resolve(testEnv().config.UPLOAD_DIR))) + TB;
    await withSecondApi({ IMPORT_DISK_RESERVE_BYTES: reserve }, async (base) => {
      const refused = await postImport(owner.token, plainRows(3, 'No room'), undefined, base);
      expect([refused.status, refused.headers.get('x-error-code')]).to.deep.equal([507, 'insufficient_storage']);
      expect(refused.body.detail).to.match(/^The upload was not received: not enough free disk space: [\d.]+ GB free/);
    });
    expect(await count()).to.equal(before);
  });

  it('fails a running import before a batch that would leave the disk less than its reserve', async () => {
    const org = await signUp();
    const pdf = await makePdf([['An agreement.']]);
    const { services } = testEnv();
    const kept = services.config.IMPORT_DISK_RESERVE_BYTES;
    // The second API (which accepts the import) keeps today's reserve; the worker's runs short of room.
    await withSecondApi({}, async (base) => {
      services.config.IMPORT_DISK_RESERVE_BYTES = (await freeBytes(path.resolve(services.config.UPLOAD_DIR))) + TB;
      try {
        const started = await postImport(
          org.token,
          csv(['title,type,counterparty,file', 'Roomless,nda,Acme,a.pdf']),
          writeZip([{ name: 'a.pdf', data: pdf }]),
          base,
        );
        expect(started.status, JSON.stringify(started.body)).to.equal(202);
        const done = await ended(org.token, started.body.id);
        expect(done.status).to.equal('failed');
        expect(done.error).to.match(/^not enough free disk space: [\d.]+ GB free/);
        expect(done.rows.done).to.equal(0);
        expect(await extracted(started.body.id)).to.deep.equal([]);
      } finally {
        services.config.IMPORT_DISK_RESERVE_BYTES = kept;
      }
    });
  });

  it('runs at most IMPORT_MAX_RUNNING_PER_ORG imports of an organization: simultaneous requests past it answer 409, and an ended one frees its place', async () => {
    const org = await signUp();
    await withSecondApi({ IMPORT_MAX_RUNNING_PER_ORG: 2, IMPORT_BATCH_ROWS: 5 }, async (base) => {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => postImport(org.token, plainRows(3000, `Race ${i}`), undefined, base)),
      );
      const accepted = answers.filter((a) => a.status === 202);
      const refused = answers.filter((a) => a.status === 409);
      expect(answers.map((a) => a.status).sort()).to.deep.equal([202, 202, 409, 409, 409, 409]);
      for (const r of refused) {
        expect(r.headers.get('x-error-code')).to.equal('too_many_running_imports');
        expect(r.body.detail).to.match(/already runs 2 imports/);
      }
      const list = await api<{ imports: ImportBody[] }>('GET', '/imports', { token: org.token });
      expect(list.body.imports.map((i) => i.status)).to.deep.equal(['running', 'running']);

      const cancelled = await api<ImportBody>('POST', `/imports/${accepted[0]!.body.id}/cancel`, { token: org.token });
      expect(cancelled.status).to.equal(200);
      const next = await postImport(org.token, plainRows(3000, 'Next'), undefined, base);
      expect(next.status, JSON.stringify(next.body)).to.equal(202);
      const full = await postImport(org.token, plainRows(3, 'Full'), undefined, base);
      expect(full.status).to.equal(409);
      // Another organization has places of its own.
      const other = await signUp();
      expect((await postImport(other.token, plainRows(3, 'Other'), undefined, base)).status).to.equal(202);
      for (const id of [accepted[1]!.body.id, next.body.id])
        expect((await api('POST', `/imports/${id}/cancel`, { token: org.token })).status).to.equal(200);
    });
  });

  it('frees the place of an import whose workflow ended without finishing it, and records that import failed', async () => {
    const org = await signUp();
    await withSecondApi({ IMPORT_MAX_RUNNING_PER_ORG: 1, IMPORT_BATCH_ROWS: 5 }, async (base) => {
      const first = await postImport(org.token, plainRows(3000, 'Crashed'), undefined, base);
      expect(first.status).to.equal(202);
      // As a workflow timed out or terminated by an operator: it never ran finishImport.
      await testEnv().services.temporal.workflow.getHandle(`import-${first.body.id}`).terminate('test: the import dies');
      const blocked = await postImport(org.token, plainRows(3, 'Blocked'), undefined, base);
      expect(blocked.status, 'a young slot is not judged').to.equal(409);
      await ImportSlot.updateOne(
        { import_id: new Types.ObjectId(first.body.id) },
        { $set: { claimed_at: new Date(Date.now() - 5 * 60_000) } },
      );
      const second = await postImport(org.token, plainRows(3, 'After'), undefined, base);
      expect(second.status, JSON.stringify(second.body)).to.equal(202);
      const crashed = await api<ImportBody>('GET', `/imports/${first.body.id}`, { token: org.token });
      expect([crashed.body.status, crashed.body.error]).to.deep.equal([
        'failed',
        'the import stopped without finishing (its workflow ended)',
      ]);
      expect((await ended(org.token, second.body.id)).status).to.equal('completed');
      // The finished import gave its place back.
      expect(await ImportSlot.countDocuments({ organization_id: new Types.ObjectId(org.organizationId) })).to.equal(0);
      expect(await Import.countDocuments({ organization_id: new Types.ObjectId(org.organizationId), status: 'running' })).to.equal(0);
    });
  });

  it("reads and splits the records file in an offload thread, not on the API's event loop", async () => {
    const pool = createOffloadPool({ threads: 1 });
    try {
      await withSecondApi(
        {},
        async (base) => {
          expect(pool.size).to.equal(0);
          const started = await postImport(owner.token, plainRows(10, 'Threaded'), undefined, base);
          expect(started.status).to.equal(202);
          expect(pool.size, 'threads the API started').to.equal(1);
          const refused = await postImport(owner.token, csv(['title,type', 'A,nda']), undefined, base);
          expect([refused.status, refused.body.detail]).to.deep.equal([400, 'records: the header lacks the required column counterparty']);
          expect((await ended(owner.token, started.body.id)).status).to.equal('completed');
        },
        { offload: pool },
      );
    } finally {
      await pool.close();
    }
  });
});
