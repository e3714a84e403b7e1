import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { api } from '../../support/http';
import { testEnv } from '../../support/env';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { makeDocx, makePdf, settled, upload, type UploadedDocument } from '../../support/documents';
import { indexName } from '../../../services/search/vector-store';

const PDF_PAGES = [
  ['1. Scope', 'This master agreement covers consulting services for the harbour project.'],
  [
    '2. Fees',
    'The quarterly retainer is 7,450 euros, invoiced on the first business day.',
    'Late payments accrue interest at four percent.',
  ],
];

async function vectorsOf(documentId: string): Promise<number> {
  const { services } = testEnv();
  const res = await services.es.count({
    index: ['knowledge_base', 'user_documents'].map((c) => indexName(services, c as 'knowledge_base')),
    query: { term: { source_id: documentId } },
  });
  return res.count;
}

const uploadFiles = async () => (await readdir(path.resolve(testEnv().config.UPLOAD_DIR))).length;

/** The upload folder reaches `count` files (refused uploads are removed as their response ends). */
async function expectUploadFiles(count: number) {
  for (let i = 0; i < 50 && (await uploadFiles()) !== count; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await uploadFiles()).to.equal(count);
}

describe('documents', function () {
  this.timeout(60000);
  let owner: TestUser;
  let pdf: UploadedDocument;

  before(async () => {
    owner = await signUp();
  });

  it('uploads a PDF: 201 processing, then ready with chunks, pages and its workflow id', async () => {
    const res = await upload(owner.token, { name: 'Harbour MSA.pdf', bytes: await makePdf(PDF_PAGES) }, 'contract');
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ filename: 'Harbour MSA.pdf', mime_type: 'application/pdf', category: 'contract', status: 'processing' });
    expect(res.body.size_bytes).to.be.greaterThan(500);
    expect(res.body.workflow_id).to.equal(`ingest-${res.body.id}`);
    expect(res.body).to.not.have.property('storage_path');
    pdf = await settled(owner.token, res.body.id);
    expect(pdf).to.include({ status: 'ready', page_count: 2, error: null, workflow_id: `ingest-${res.body.id}` });
    expect(pdf.chunk_count).to.equal(2); // one short page, one chunk each
    expect(await vectorsOf(pdf.id)).to.equal(2);
  });

  it('uploads a DOCX and a TXT (policy goes to the knowledge base)', async () => {
    const docx = await upload(
      owner.token,
      {
        name: 'handbook.docx',
        bytes: await makeDocx([{ heading: 'Travel', paragraphs: ['Economy class for flights under six hours.'] }]),
      },
      'policy',
    );
    const txt = await upload(
      owner.token,
      { name: 'notes.txt', bytes: Buffer.from('Meeting notes: renewal déjà discussed.\fSecond page.') },
      'other',
    );
    expect(docx.status).to.equal(201);
    expect(txt.status).to.equal(201);
    expect(docx.body.mime_type).to.equal('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(txt.body.mime_type).to.equal('text/plain');
    expect(await settled(owner.token, docx.body.id)).to.include({ status: 'ready', chunk_count: 1 });
    expect(await settled(owner.token, txt.body.id)).to.include({ status: 'ready', chunk_count: 2, page_count: 2 });
    const { services } = testEnv();
    const kb = await services.es.count({ index: indexName(services, 'knowledge_base'), query: { term: { source_id: docx.body.id } } });
    expect(kb.count).to.equal(1);
  });

  it('rejects a renamed binary, an empty file, a bad category and a missing file with 400, keeping nothing', async () => {
    const before = await uploadFiles();
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const exe = Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00]);
    for (const [name, bytes] of [
      ['contract.pdf', png],
      ['report.docx', exe],
      ['notes.txt', exe],
    ] as const) {
      const res = await upload(owner.token, { name, bytes, type: 'application/pdf' }, 'contract');
      expect(res.status, name).to.equal(400);
      expect(res.body.detail).to.equal('file: content is not a PDF, DOCX or UTF-8 text file');
    }
    expect((await upload(owner.token, { name: 'empty.txt', bytes: Buffer.alloc(0) }, 'other')).body.detail).to.equal('file: is empty');
    const bad = await upload(owner.token, { name: 'a.txt', bytes: Buffer.from('hello') }, 'invoice');
    expect(bad.status).to.equal(400);
    expect(bad.body.detail).to.match(/^category: /);
    expect((await upload(owner.token, { name: 'a.txt', bytes: Buffer.from('hello') })).body.detail).to.match(/^category: /);
    const none = await api('POST', '/documents/upload', { token: owner.token, body: { category: 'other' } });
    expect(none.status).to.equal(400);
    expect(none.body.detail).to.match(/^file: is required/);
    await expectUploadFiles(before);
  });

  it('answers 413 past the 50 MB limit and keeps no partial file', async () => {
    const before = await uploadFiles();
    const res = await upload(owner.token, { name: 'big.txt', bytes: Buffer.alloc(testEnv().config.UPLOAD_MAX_BYTES + 1, 'a') }, 'other');
    expect(res.status).to.equal(413);
    expect(res.body.detail).to.equal('file: larger than the 50 MB upload limit');
    await expectUploadFiles(before);
  });

  it('sanitizes the file name', async () => {
    const res = await upload(owner.token, { name: '../../etc/pa<ss>wd?.txt', bytes: Buffer.from('root text') }, 'other');
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.filename).to.equal('passwd.txt');
    const dotted = await upload(owner.token, { name: '..\\..\\.Vertrag über Miete.txt', bytes: Buffer.from('text') }, 'other');
    expect(dotted.body.filename).to.equal('Vertrag über Miete.txt');
  });

  it('replays an upload under the same Idempotency-Key, and refuses another file under it with 409', async () => {
    const key = { headers: { 'idempotency-key': `upload-${Date.now()}` } };
    const file = { name: 'minutes.txt', bytes: Buffer.from('Board minutes: the budget was approved.') };
    const first = await upload(owner.token, file, 'other', key);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const files = await uploadFiles();
    const again = await upload(owner.token, file, 'other', key);
    expect(again.status).to.equal(201);
    expect(again.body.id).to.equal(first.body.id);
    // Same name, size and category; only the bytes differ.
    const other = await upload(
      owner.token,
      { name: 'minutes.txt', bytes: Buffer.from('Board minutes: the budget was rejected.') },
      'other',
      key,
    );
    expect(other.status).to.equal(409);
    expect(other.body.detail).to.equal('Idempotency-Key: already used for a different request');
    await expectUploadFiles(files);
  });

  it('marks a corrupt PDF failed with the reason', async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)]);
    const res = await upload(owner.token, { name: 'broken.pdf', bytes }, 'contract');
    expect(res.status).to.equal(201);
    const doc = await settled(owner.token, res.body.id);
    expect(doc.status).to.equal('failed');
    expect(doc.error).to.match(/PDF/);
    expect(doc.chunk_count).to.equal(0);
  });

  it('lists with filters and pagination', async () => {
    const all = await api<{ documents: UploadedDocument[]; total: number; page: number; page_size: number }>('GET', '/documents', {
      token: owner.token,
    });
    expect(all.status).to.equal(200);
    expect(all.body).to.include({ page: 1, page_size: 20 });
    expect(all.body.total).to.equal(all.body.documents.length);
    expect(all.body.total).to.be.at.least(5);
    const contracts = await api<{ documents: UploadedDocument[]; total: number }>('GET', '/documents?category=contract&status=ready', {
      token: owner.token,
    });
    expect(contracts.body.documents.map((d) => d.id)).to.deep.equal([pdf.id]);
    const paged = await api<{ documents: UploadedDocument[]; page_size: number }>('GET', '/documents?page=2&page_size=2', {
      token: owner.token,
    });
    expect(paged.body.documents).to.have.length(2);
    expect(paged.body.documents[0]!.id).to.equal(all.body.documents[2]!.id);
    expect((await api('GET', '/documents?page_size=500', { token: owner.token })).body.page_size).to.equal(100);
    expect((await api('GET', '/documents?page=0', { token: owner.token })).status).to.equal(400);
    expect((await api('GET', '/documents?status=lost', { token: owner.token })).status).to.equal(400);
  });

  it("attaches an upload to a contract of the organization (contract_id), listed by it; another organization's or a malformed id is 404", async () => {
    const contract = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Harbour MSA', type: 'service_agreement', counterparty: 'Harbour Ltd' },
    });
    const bytes = Buffer.from('The harbour services renew each year.');
    const attached = await upload(owner.token, { name: 'harbour.txt', bytes }, 'contract', { fields: { contract_id: contract.body.id } });
    expect(attached.status, attached.body.detail).to.equal(201);
    expect(attached.body.contract_id).to.equal(contract.body.id);
    const listed = await api<{ documents: UploadedDocument[] }>('GET', `/documents?contract_id=${contract.body.id}`, {
      token: owner.token,
    });
    expect(listed.body.documents.map((d) => d.id)).to.deep.equal([attached.body.id]);
    expect((await api('GET', '/documents?contract_id=nope', { token: owner.token })).status).to.equal(400);
    const stranger = await signUp();
    for (const id of [contract.body.id, 'nope', '{"$gt":""}']) {
      const refused = await upload(stranger.token, { name: 'x.txt', bytes }, 'contract', { fields: { contract_id: id } });
      expect(refused.status).to.equal(404);
      expect(refused.body.detail).to.equal('Contract not found');
    }
    await settled(owner.token, attached.body.id);
  });

  it('analyzes a document into the spec shape', async () => {
    const res = await api<Record<string, unknown>>('POST', `/documents/${pdf.id}/analyze`, { token: owner.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys('summary', 'key_terms', 'risks', 'document_type', 'page_count');
    expect(res.body.page_count).to.equal(2);
    expect(res.body.summary)
      .to.be.a('string')
      .and.match(/consulting services/);
  });

  it('hides documents from other organizations and enforces roles', async () => {
    const stranger = await signUp();
    expect((await api('GET', `/documents/${pdf.id}`, { token: stranger.token })).status).to.equal(404);
    expect((await api('DELETE', `/documents/${pdf.id}`, { token: stranger.token })).status).to.equal(404);
    expect((await api('GET', '/documents/not-an-id', { token: owner.token })).status).to.equal(404);
    expect((await api<{ total: number }>('GET', '/documents', { token: stranger.token })).body.total).to.equal(0);
    const viewer = await addMember(owner, 'viewer');
    expect((await upload(viewer.token, { name: 'v.txt', bytes: Buffer.from('viewer text') }, 'other')).status).to.equal(403);
    const member = await addMember(owner, 'member');
    expect((await api('DELETE', `/documents/${pdf.id}`, { token: member.token })).status).to.equal(403);
    expect((await api('GET', '/documents')).status).to.equal(401);
  });

  it('deletes the record, its vectors and its file', async () => {
    const before = await uploadFiles();
    expect(await vectorsOf(pdf.id)).to.equal(2);
    const res = await api('DELETE', `/documents/${pdf.id}`, { token: owner.token });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expect(await vectorsOf(pdf.id)).to.equal(0);
    await expectUploadFiles(before - 1);
    expect((await api('GET', `/documents/${pdf.id}`, { token: owner.token })).status).to.equal(404);
  });
});
