import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { copyFile, rm } from 'node:fs/promises';
import { Types } from 'mongoose';
import { api } from '../../support/http';
import { csv, ended, errorsOf, postImport, type ImportBody } from '../../support/imports';
import { restartWorker, testEnv, withSecondApi } from '../../support/env';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { makeDocx, makePdf } from '../../support/documents';
import { writeZip } from '../../support/bombs';
import { startReceiver } from '../../support/receiver';
import { waitFor } from '../../support/processes';
import { Contract } from '../../../models/contract';
import { Document } from '../../../models/document';
import { Event } from '../../../models/event';
import { Import, ImportRowError } from '../../../models/import';
import { writeBatch } from '../../../services/imports/import-batch';

const MB = 1024 * 1024;

const RENEWING =
  'This Agreement renews automatically for successive one-year terms unless either party gives written notice of non-renewal at least 60 days before the end of the then-current term. This Agreement is governed by the laws of the State of New York.';

describe('imports', function () {
  // The machine is shared: ingesting even small files takes a while under load.
  this.timeout(900_000);
  let owner: TestUser;

  before(async () => {
    owner = await signUp();
  });

  it('creates a contract per good row with its file as its document, rejects each bad row with its line and reason, and goes on', async () => {
    const receiver = await startReceiver();
    const sub = await api('POST', '/webhooks/subscribe', {
      token: owner.token,
      body: { url: receiver.url, events: ['import.completed'], secret: 'import-test-secret-0123' },
    });
    expect(sub.status).to.equal(201);
    const pdf = await makePdf([['Master services agreement between Acme and Globex.']]);
    const docx = await makeDocx([{ heading: 'Supply agreement', paragraphs: ['Initech supplies widgets to Acme.'] }]);
    const zip = writeZip([
      { name: 'msa/acme.pdf', data: pdf },
      { name: 'supply.docx', data: docx },
      { name: 'notes.txt', data: Buffer.from('plain text, not an agreement file') },
      { name: '../evil.pdf', data: pdf },
      // Headers that understate what the entry inflates to: a zip bomb's trick.
      { name: 'liar.pdf', data: Buffer.concat([pdf, Buffer.alloc(300_000)]), declaredSize: pdf.length },
      // Two megabytes of zeros: inflates over a thousand times.
      { name: 'zeros.pdf', data: Buffer.alloc(2 * MB) },
      // Headers that claim more than the upload limit.
      { name: 'huge.pdf', data: pdf, declaredSize: 60 * MB },
    ]);
    const records = csv([
      'title,type,counterparty,start_date,end_date,value,file,content',
      'Acme MSA,service_agreement,Acme,2024-01-01,2025-12-31,1200.50,msa/acme.pdf,', // 2
      'Initech supply,consulting,Initech,,,,supply.docx,', // 3
      'Bad date,nda,Umbrella,2024-13-01,,,,', // 4
      '"Broken"quote,nda,Umbrella,,,,,', // 5
      'Too many,nda,Umbrella,,,,,,surplus', // 6
      'Notes,nda,Umbrella,,,,notes.txt,', // 7
      'Escape,nda,Umbrella,,,,../evil.pdf,', // 8
      'Liar,nda,Umbrella,,,,liar.pdf,', // 9
      'Zeros,nda,Umbrella,,,,zeros.pdf,', // 10
      'Huge,nda,Umbrella,,,,huge.pdf,', // 11
      'Missing,nda,Umbrella,,,,missing.pdf,', // 12
      `Renewing,service_agreement,Hooli,2024-01-01,2024-12-31,,,"${RENEWING}"`, // 13
      'Bad value,nda,Umbrella,,,lots,,', // 14
      '"Never closed,nda,Umbrella,,,,,', // 15
      'After the bad quote,nda,Vandelay,,,,,', // 16
      'Ends before it starts,nda,Umbrella,2024-05-01,2024-04-01,,,', // 17
    ]);
    const started = await postImport(owner.token, records, zip);
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    expect(started.body.status).to.equal('running');
    expect(started.body.errors_url).to.equal(`/api/v1/imports/${started.body.id}/errors`);

    const done = await ended(owner.token, started.body.id);
    expect(done.status).to.equal('completed');
    const errors = await errorsOf(owner.token, done.id);
    expect([...errors.keys()], JSON.stringify([...errors])).to.deep.equal([4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 17]);
    expect(done.rows).to.deep.equal({ total: 16, done: 4, failed: 12 });
    expect(done.files).to.deep.equal({ total: 8, ingested: 2, failed: 6 });
    expect(done.terms_extracted).to.equal(3);
    expect(done.finished_at).to.be.a('string');
    expect(done.eta_seconds).to.equal(null);

    expect(errors.get(4)).to.match(/start_date: must be a date/);
    expect(errors.get(5)).to.match(/malformed CSV/);
    expect(errors.get(6)).to.match(/unknown column/);
    expect(errors.get(7)).to.match(/not a PDF or DOCX/);
    expect(errors.get(8)).to.match(/unsafe name/);
    expect(errors.get(9)).to.match(/decompression bomb/);
    expect(errors.get(10)).to.match(/decompression bomb/);
    expect(errors.get(11)).to.match(/larger than the 50 MB file limit/);
    expect(errors.get(12)).to.match(/not in the ZIP/);
    expect(errors.get(14)).to.match(/value: must be a number/);
    expect(errors.get(15)).to.match(/never closed/);
    expect(errors.get(17)).to.match(/end_date: must not be before start_date/);

    const list = await api<{ contracts: Array<{ id: string; title: string }>; total: number }>('GET', '/contracts?page_size=100', {
      token: owner.token,
    });
    expect(list.body.contracts.map((c) => c.title).sort()).to.deep.equal(['Acme MSA', 'After the bad quote', 'Initech supply', 'Renewing']);
    const msa = list.body.contracts.find((c) => c.title === 'Acme MSA')!;
    const msaFull = await api<{ document_id: string; value: number; start_date: string }>('GET', `/contracts/${msa.id}`, {
      token: owner.token,
    });
    expect(msaFull.body).to.include({ value: 1200.5, start_date: '2024-01-01' });
    const doc = await api<{ status: string; contract_id: string; category: string; filename: string }>(
      'GET',
      `/documents/${msaFull.body.document_id}`,
      { token: owner.token },
    );
    expect(doc.body).to.include({ status: 'ready', contract_id: msa.id, category: 'contract', filename: 'acme.pdf' });
    const supply = list.body.contracts.find((c) => c.title === 'Initech supply')!;
    const supplyDocs = await api<{ documents: Array<{ mime_type: string; status: string }> }>(
      'GET',
      `/documents?contract_id=${supply.id}`,
      {
        token: owner.token,
      },
    );
    expect(supplyDocs.body.documents.map((d) => d.status)).to.deep.equal(['ready']);
    const renewing = list.body.contracts.find((c) => c.title === 'Renewing')!;
    const terms = await api<{ extracted_at: string | null; terms: { auto_renewal: { normalized: unknown } | null } }>(
      'GET',
      `/contracts/${renewing.id}/terms`,
      { token: owner.token },
    );
    expect(terms.body.extracted_at).to.be.a('string');
    expect(terms.body.terms.auto_renewal?.normalized).to.equal(true);

    // No per-contract terms workflow: the import extracted them in its own batches.
    const { services, config } = testEnv();
    const { count } = await services.temporal.workflowService.countWorkflowExecutions({
      namespace: config.TEMPORAL_NAMESPACE,
      query: `OrganizationId = "${owner.organizationId}" AND RecordKind = "contract-terms"`,
    });
    expect(Number(count)).to.equal(0);

    for (let i = 0; i < 100 && !receiver.received.length; i++) await new Promise((r) => setTimeout(r, 200));
    const delivered = JSON.parse(receiver.received[0]!.body) as { event: string; data: { id: string; rows: unknown } };
    expect(delivered.event).to.equal('import.completed');
    expect(delivered.data).to.deep.include({ id: done.id, rows: { total: 16, done: 4, failed: 12 } });
    const feed = await api<{ activities: Array<{ type: string; resource_id: string }> }>('GET', '/analytics/activity?type=import', {
      token: owner.token,
    });
    expect(feed.body.activities.map((a) => [a.type, a.resource_id])).to.deep.equal([['import.completed', done.id]]);
    await receiver.close();
  });

  it('reads JSON Lines, rejecting a line that is not JSON or names an unknown column', async () => {
    const lines = [
      JSON.stringify({ title: 'One', type: 'nda', counterparty: 'A', value: 10 }),
      '{"title": "Broken", ',
      JSON.stringify({ title: 'Two', type: 'nda', counterparty: 'B', colour: 'blue' }),
      '',
      JSON.stringify({ title: 'Three', type: 'lease', counterparty: 'C', status: 'active', end_date: '2030-01-31' }),
      JSON.stringify({ title: 'Four', type: 'nda', counterparty: 'D', start_date: '31/01/2024' }),
    ];
    const started = await postImport(owner.token, { name: 'contracts.jsonl', text: lines.join('\n') });
    expect(started.status).to.equal(202);
    const done = await ended(owner.token, started.body.id);
    expect(done.rows).to.deep.equal({ total: 5, done: 2, failed: 3 });
    const errors = await errorsOf(owner.token, done.id);
    expect(errors.get(2)).to.match(/not valid JSON/);
    expect(errors.get(3)).to.match(/unknown column "colour"/);
    expect(errors.get(6)).to.match(/start_date: must be a date/);
  });

  it('answers 400 and 413 for what cannot be imported at all, and nothing starts', async () => {
    const member = await addMember(owner, 'member');
    const viewer = await addMember(owner, 'viewer');
    const good = csv(['title,type,counterparty', 'A,nda,B']);
    const count = async () => (await api<{ total: number }>('GET', '/imports', { token: member.token })).body.total;
    const imports = await count();
    expect((await postImport(viewer.token, good)).status).to.equal(403);
    const missing = await postImport(member.token, null);
    expect([missing.status, missing.body.detail]).to.deep.equal([
      400,
      'records: is required (multipart/form-data field "records", a CSV or JSON Lines file)',
    ]);
    const unknownHeader = await postImport(member.token, csv(['title,type,counterparty,colour', 'A,nda,B,blue']));
    expect(unknownHeader.status).to.equal(400);
    expect(unknownHeader.body.detail).to.match(/^records: unknown column "colour" in the header/);
    const noRequired = await postImport(member.token, csv(['title,type', 'A,nda']));
    expect(noRequired.body.detail).to.equal('records: the header lacks the required column counterparty');
    const notZip = await postImport(member.token, good, Buffer.from('not a zip at all'));
    expect(notZip.status).to.equal(400);
    expect(notZip.body.detail).to.match(/^files: not a readable ZIP/);
    await withSecondApi({ IMPORT_MAX_ROWS: 3, IMPORT_RECORDS_MAX_BYTES: 2000, IMPORT_ZIP_MAX_BYTES: 1000 }, async (base) => {
      const rows = await postImport(
        member.token,
        csv(['title,type,counterparty', 'A,nda,B', 'C,nda,D', 'E,nda,F', 'G,nda,H']),
        undefined,
        base,
      );
      expect([rows.status, rows.body.detail]).to.deep.equal([413, 'records: more than the 3 rows an import may have']);
      const bytes = await postImport(member.token, csv(['title,type,counterparty', `A,nda,${'x'.repeat(3000)}`]), undefined, base);
      expect(bytes.status).to.equal(413);
      expect(bytes.body.detail).to.match(/^records: larger than/);
      const zip = await postImport(member.token, good, writeZip([{ name: 'a.pdf', data: randomBytes(5000) }]), base);
      expect(zip.status).to.equal(413);
      expect(zip.body.detail).to.match(/^files: larger than/);
    });
    expect(await count()).to.equal(imports);
  });

  it('keeps imports to their organization: another one can neither read nor cancel them', async () => {
    const started = await postImport(owner.token, csv(['title,type,counterparty', 'Private,nda,Secret']));
    const other = await signUp();
    for (const [method, path] of [
      ['GET', `/imports/${started.body.id}`],
      ['GET', `/imports/${started.body.id}/errors`],
      ['POST', `/imports/${started.body.id}/cancel`],
    ] as const) {
      expect((await api(method, path, { token: other.token })).status, `${method} ${path}`).to.equal(404);
    }
    const list = await api<{ imports: unknown[]; total: number }>('GET', '/imports', { token: other.token });
    expect(list.body.total).to.equal(0);
    expect((await ended(owner.token, started.body.id)).status).to.equal('completed');
  });

  it('is cancelled at once: no further batch runs, and a second cancel is 409', async () => {
    const rows = ['title,type,counterparty', ...Array.from({ length: 2000 }, (_, i) => `Bulk ${i},nda,Party ${i}`)];
    await withSecondApi({ IMPORT_BATCH_ROWS: 20 }, async (base) => {
      const started = await postImport(owner.token, csv(rows), undefined, base);
      expect(started.status).to.equal(202);
      const cancelled = await api<ImportBody>('POST', `/imports/${started.body.id}/cancel`, { token: owner.token });
      expect(cancelled.status).to.equal(200);
      expect(cancelled.body.status).to.equal('cancelled');
      const done = await ended(owner.token, started.body.id);
      expect(done.status).to.equal('cancelled');
      expect(done.rows.done).to.be.below(2000);
      // A batch under way at the cancel finishes, and its contracts are counted too.
      const made = () => Contract.countDocuments({ organization_id: new Types.ObjectId(owner.organizationId), title: /^Bulk / });
      const counted = async () => (await api<ImportBody>('GET', `/imports/${started.body.id}`, { token: owner.token })).body.rows.done;
      await waitFor(async () => (await made()) === (await counted()), 30000, 'every contract created is counted');
      expect(await counted()).to.be.below(2000);
      const again = await api('POST', `/imports/${started.body.id}/cancel`, { token: owner.token });
      expect([again.status, again.headers.get('x-error-code')]).to.deep.equal([409, 'import_not_running']);
    });
  });

  it('restarted mid-way, and every batch sent again, creates each contract, document and event once', async () => {
    const org = await signUp();
    const pdf = await makePdf([['A short agreement.']]);
    const entries = Array.from({ length: 10 }, (_, i) => ({ name: `files/${i}.pdf`, data: pdf }));
    const rows = [
      'title,type,counterparty,file',
      ...Array.from({ length: 300 }, (_, i) => `Contract ${i},nda,Party ${i},${i % 30 === 0 ? `files/${i / 30}.pdf` : ''}`),
    ];
    let id = '';
    await withSecondApi({ IMPORT_BATCH_ROWS: 25 }, async (base) => {
      const started = await postImport(org.token, csv(rows), writeZip(entries), base);
      expect(started.status).to.equal(202);
      id = started.body.id;
    });
    // The uploads are removed when the import ends; keep copies to send the batches again afterwards.
    const uploaded = (await Import.findById(id))!;
    const copies = { records: `${uploaded.records_path}.copy`, files: `${uploaded.files_path}.copy` };
    await copyFile(uploaded.records_path, copies.records);
    await copyFile(uploaded.files_path!, copies.files);
    // Restart the worker once some batches are done and more are left.
    for (let i = 0; i < 600; i++) {
      const progress = await Import.findById(id);
      if (progress!.rows.done >= 50) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const before = (await Import.findById(id))!;
    expect(before.status).to.equal('running');
    expect(before.rows.done).to.be.below(300);
    await restartWorker();
    const done = await ended(org.token, id);
    expect(done.status).to.equal('completed');
    expect(done.rows).to.deep.equal({ total: 300, done: 300, failed: 0 });
    expect(done.files).to.deep.equal({ total: 10, ingested: 10, failed: 0 });

    // Every batch again, as a retried activity would: nothing new.
    const imported = (await Import.findById(id))!;
    imported.records_path = copies.records;
    imported.files_path = copies.files;
    for (let b = 0; b < imported.batches.length; b++) await writeBatch(testEnv().services, imported, b);
    const organizationId = new Types.ObjectId(org.organizationId);
    const titles = (await Contract.find({ organization_id: organizationId }, { title: 1 }).lean()).map((c) => c.title);
    expect(titles).to.have.length(300);
    expect(new Set(titles).size).to.equal(300);
    expect(await Document.countDocuments({ organization_id: organizationId })).to.equal(10);
    expect(await Event.countDocuments({ organization_id: organizationId, type: 'contract.created' })).to.equal(300);
    expect(await ImportRowError.countDocuments({ import_id: imported._id })).to.equal(0);
    const list = await api<{ total: number }>('GET', '/contracts?page_size=1', { token: org.token });
    expect(list.body.total).to.equal(300);
    await Promise.all([rm(copies.records), rm(copies.files)]);
  });
});
