import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { makePdf, settled, upload } from '../../support/documents';

interface Version {
  id: string;
  number: number;
  author: { id: string | null; name: string | null };
  version_note: string | null;
  sha256: string;
  restored_from: number | null;
  source: string;
  content?: string;
  terms: Record<string, { value: string } | null> | null;
}
interface Part {
  op: 'equal' | 'insert' | 'delete';
  text: string;
}
interface Paragraph {
  op: 'equal' | 'insert' | 'delete' | 'change';
  a?: number;
  b?: number;
  text?: string;
  parts?: Part[];
}
interface Diff {
  from: { number: number; sha256: string };
  to: { number: number; sha256: string };
  paragraphs: Paragraph[];
  stats: { inserted_words: number; deleted_words: number; changed_paragraphs: number };
  clauses: Array<{ term: string; summary: string }> | null;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const V1 = [
  'Master Services Agreement between Acme Corp and Northwind Ltd.',
  'The Customer shall pay the fees within thirty days of each invoice.',
  'Either party may assign this Agreement with consent.',
  "Each party's liability arising under this Agreement will not exceed the fees payable by Customer in the 12 months before the claim.",
  'This Agreement is governed by the laws of the State of New York.',
].join('\n');
const V2 = [
  'Master Services Agreement between Acme Corp and Northwind Ltd.',
  'The Customer shall pay the fees within sixty days of each undisputed invoice.',
  'This Agreement is governed by the laws of the State of New York.',
  'Notices must be given in writing.',
].join('\n');

async function newContract(u: TestUser, content: string) {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: 'MSA <b>bold</b>', type: 'service_agreement', counterparty: 'Northwind', content },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

const versions = (u: TestUser, id: string) =>
  api<{ versions: Version[]; total: number }>('GET', `/contracts/${id}/versions`, { token: u.token });

/** Waits for the relay's extraction to give a version its terms. */
async function termsOf(u: TestUser, id: string, n: number): Promise<Version['terms']> {
  for (let i = 0; i < 150; i++) {
    const v = await api<Version>('GET', `/contracts/${id}/versions/${n}`, { token: u.token });
    if (v.body.terms) return v.body.terms;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`version ${n} never got its terms`);
}

describe('contract versions and redlines', function () {
  this.timeout(90000);
  let owner: TestUser;
  before(async () => {
    owner = await signUp();
  });

  it('keeps a version per change of the text, with author, note and SHA-256, and restores an old one as a new version', async () => {
    const id = await newContract(owner, V1);
    const first = await versions(owner, id);
    expect(first.status).to.equal(200);
    expect(first.body.versions).to.have.length(1);
    expect(first.body.versions[0]).to.include({ number: 1, sha256: sha256(V1), source: 'content', restored_from: null });
    expect(first.body.versions[0]!.author).to.deep.equal({ id: owner.user.id, name: 'Test Owner' });

    const edited = await api('PUT', `/contracts/${id}`, {
      token: owner.token,
      body: { content: V2, version_note: 'Counterparty redline' },
    });
    expect(edited.status, edited.text).to.equal(200);
    // A change of anything but the text makes no version.
    expect((await api('PUT', `/contracts/${id}`, { token: owner.token, body: { title: 'Renamed MSA' } })).status).to.equal(200);
    const second = await versions(owner, id);
    expect(second.body.versions.map((v) => v.number)).to.deep.equal([2, 1]);
    expect(second.body.versions[0]).to.include({ version_note: 'Counterparty redline', sha256: sha256(V2) });
    expect(second.body.versions[0]).to.not.have.property('content');

    const one = await api<Version>('GET', `/contracts/${id}/versions/1`, { token: owner.token });
    expect(one.body.content).to.equal(V1);

    const restored = await api<{ content: string }>('POST', `/contracts/${id}/versions/1/restore`, { token: owner.token, body: {} });
    expect(restored.status, restored.text).to.equal(200);
    expect(restored.body.content).to.equal(V1);
    const third = await versions(owner, id);
    expect(third.body.versions[0]).to.include({ number: 3, restored_from: 1, sha256: sha256(V1), version_note: 'Restored version 1' });

    expect((await api('GET', `/contracts/${id}/versions/9`, { token: owner.token })).status).to.equal(404);
    const bad = await api<{ detail: string }>('GET', `/contracts/${id}/versions/first`, { token: owner.token });
    expect(bad.status).to.equal(400);
    expect(bad.body.detail).to.match(/^n: /);
  });

  it('redlines two versions word by word, grouped by paragraph, with the key terms that changed', async () => {
    const id = await newContract(owner, V1);
    await termsOf(owner, id, 1);
    expect((await api('PUT', `/contracts/${id}`, { token: owner.token, body: { content: V2 } })).status).to.equal(200);
    await termsOf(owner, id, 2);

    const res = await api<Diff>('GET', `/contracts/${id}/versions/1/diff/2`, { token: owner.token });
    expect(res.status, res.text).to.equal(200);
    const d = res.body;
    expect(d.from).to.deep.equal({ number: 1, sha256: sha256(V1), text_truncated: false });
    expect(d.to).to.deep.equal({ number: 2, sha256: sha256(V2), text_truncated: false });
    expect(d.paragraphs.map((p) => p.op)).to.deep.equal(['equal', 'change', 'delete', 'delete', 'equal', 'insert']);
    const changed = d.paragraphs[1]!.parts!;
    expect(changed.filter((p) => p.op === 'delete').map((p) => p.text)).to.deep.equal(['thirty']);
    expect(changed.filter((p) => p.op === 'insert').map((p) => p.text.trim())).to.deep.equal(['sixty', 'undisputed']);
    expect(changed.map((p) => (p.op === 'delete' ? '' : p.text)).join('')).to.equal(
      'The Customer shall pay the fees within sixty days of each undisputed invoice.',
    );
    expect(d.paragraphs[2]).to.deep.include({ op: 'delete', a: 2, text: 'Either party may assign this Agreement with consent.' });
    expect(d.paragraphs[5]).to.deep.include({ op: 'insert', b: 3, text: 'Notices must be given in writing.' });
    expect(d.stats).to.include({ inserted_words: 2 + 6, deleted_words: 1 + 8 + 22, changed_paragraphs: 1 });
    expect(d.clauses!.map((c) => c.term)).to.include('liability_cap');
    const cap = d.clauses!.find((c) => c.term === 'liability_cap')!;
    expect(cap.summary).to.match(/^liability cap: .*12 months.* → uncapped$/);
  });

  it('redlines two PDFs of record by their extracted text, and hashes their bytes', async () => {
    const id = await newContract(owner, 'Draft.');
    const pdfOfRecord = async (text: string) => {
      const bytes = await makePdf([[text]]);
      const up = await upload(owner.token, { name: 'msa.pdf', bytes, type: 'application/pdf' }, 'contract');
      expect(up.status, JSON.stringify(up.body)).to.equal(201);
      expect((await settled(owner.token, up.body.id)).status).to.equal('ready');
      const put = await api('PUT', `/contracts/${id}`, { token: owner.token, body: { document_id: up.body.id } });
      expect(put.status, put.text).to.equal(200);
      return createHash('sha256').update(bytes).digest('hex');
    };
    const [a, b] = [await pdfOfRecord('Fees are due within thirty days.'), await pdfOfRecord('Fees are due within sixty days.')];
    const listed = (await versions(owner, id)).body.versions.filter((v) => v.source === 'document');
    expect(listed.map((v) => v.sha256).sort()).to.deep.equal([a, b].sort());
    const [from, to] = listed.map((v) => v.number).sort((x, y) => x - y);
    const res = await api<Diff>('GET', `/contracts/${id}/versions/${from}/diff/${to}`, { token: owner.token });
    expect(res.status, res.text).to.equal(200);
    const parts = res.body.paragraphs.flatMap((p) => p.parts ?? []);
    expect(parts.filter((p) => p.op === 'delete').map((p) => p.text.trim())).to.deep.equal(['thirty']);
    expect(parts.filter((p) => p.op === 'insert').map((p) => p.text.trim())).to.deep.equal(['sixty']);
  });

  it('renders the redline as HTML with every piece of text escaped', async () => {
    const id = await newContract(owner, 'Intro.\nThe <script>alert(1)</script> clause & more.');
    await api('PUT', `/contracts/${id}`, {
      token: owner.token,
      body: { content: 'Intro.\nThe <script>alert(2)</script> clause & more "quoted".\n<img src=x onerror=alert(3)>' },
    });
    const res = await api('GET', `/contracts/${id}/versions/1/diff/2`, { token: owner.token, headers: { accept: 'text/html' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('content-security-policy')).to.match(/default-src 'none'/);
    expect(res.text).to.not.match(/<script|<img|<b>/i);
    expect(res.text).to.include('MSA &lt;b&gt;bold&lt;/b&gt;');
    expect(res.text).to.include('&lt;script&gt;alert(<del>1</del><ins>2</ins>)&lt;/script&gt;');
    expect(res.text).to.include('<ins>&lt;img src=x onerror=alert(3)&gt;</ins>');
    // Without asking for HTML, JSON.
    const json = await api('GET', `/contracts/${id}/versions/1/diff/2`, { token: owner.token });
    expect(json.headers.get('content-type')).to.match(/^application\/json/);
  });

  it('keeps versions inside the organization and to the roles that may edit', async () => {
    const id = await newContract(owner, V1);
    const stranger = await signUp();
    expect((await versions(stranger, id)).status).to.equal(404);
    expect((await api('GET', `/contracts/${id}/versions/1/diff/1`, { token: stranger.token })).status).to.equal(404);
    expect((await api('POST', `/contracts/${id}/versions/1/restore`, { token: stranger.token, body: {} })).status).to.equal(404);
    const viewer = await addMember(owner, 'viewer');
    expect((await versions(viewer, id)).status).to.equal(200);
    expect((await api('POST', `/contracts/${id}/versions/1/restore`, { token: viewer.token, body: {} })).status).to.equal(403);
  });
});
