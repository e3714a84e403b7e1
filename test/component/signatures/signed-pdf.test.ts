import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api } from '../../support/http';
import { addMember, fromIp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { repoRoot, waitFor } from '../../support/processes';
import { makePdf, upload } from '../../support/documents';
import { Document } from '../../../models/document';
import { uniqueAddress, waitForMail } from '../../support/mailbox';
import { MIME } from '../../../services/documents/document-files';
import { extractPages } from '../../../services/documents/extraction';
import { Signature, auditOf } from '../../../models/signature';
import { SignedPdf } from '../../../models/signed-pdf';
import { FrozenPdf, frozenPdfId } from '../../../models/frozen-pdf';
import { renderSignedPdf, sealSignedPdf } from '../../../services/signatures/signed-pdf-store';
import { sealedPdf, waitSealed, type SignatureBody } from '../../support/signatures';

interface Seal {
  status: string;
  valid: boolean;
  covers_whole_document: boolean;
  service_certificate: boolean;
  reason?: string;
}

const PYHANKO = path.join(repoRoot, '.stack/venv-pyhanko/bin/pyhanko');
const CONTENT = Array.from(
  { length: 120 },
  (_, i) => `${i + 1}. Clause ${i + 1}. The Supplier shall perform its obligations under clause ${i + 1} with due care.`,
).join('\n');
/** Text beyond Latin-1, which the built-in PDF fonts would have drawn as "?". */
const WIDE_TEXT = 'Notices: Zoë Müller — Łódź; Αθήνα, Ελλάδα; Кирилл Петров, Санкт-Петербург.';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** `pyhanko sign validate` trusting only the service's sealing certificate: its exit code and output. */
function pyhanko(pdf: Buffer, certPem: string, pretty = false) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pyhanko-'));
  writeFileSync(path.join(dir, 'signed.pdf'), pdf);
  writeFileSync(path.join(dir, 'seal.pem'), certPem);
  const r = spawnSync(
    PYHANKO,
    [
      'sign',
      'validate',
      ...(pretty ? ['--pretty-print'] : []),
      '--trust',
      path.join(dir, 'seal.pem'),
      '--trust-replace',
      path.join(dir, 'signed.pdf'),
    ],
    { encoding: 'utf8' },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

async function pdfText(pdf: Buffer): Promise<string[]> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pdf-text-')), 'signed.pdf');
  writeFileSync(file, pdf);
  return (await extractPages(file, MIME.pdf)).map((p) => p.text.replace(/\s+/g, ' '));
}

describe('sealed PDF', function () {
  this.timeout(300000);
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let sig: SignatureBody;
  let pdf: Buffer;
  let certPem: string;
  let signingTokens: string[];
  const signers = [
    { name: 'Amélie Signer', email: uniqueAddress('amelie') },
    { name: 'Łukasz Żółtowski', email: uniqueAddress('lukasz') },
  ];

  before(async () => {
    owner = await signUp();
    [member, stranger] = await Promise.all([addMember(owner, 'member'), signUp()]);
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: {
        title: `Supply agreement ${randomUUID().slice(0, 6)}`,
        type: 'service_agreement',
        counterparty: 'Acme',
        content: `${CONTENT}\n${WIDE_TEXT}`,
      },
    });
    const created = await api<SignatureBody>('POST', '/signatures', { token: member.token, body: { contract_id: c.body.id, signers } });
    expect(created.status, created.text).to.equal(201);
    signingTokens = created.body.signers.map((x) => x.signing_url.split('/').pop()!);
    for (const [i, x] of created.body.signers.entries()) {
      const token = x.signing_url.split('/').pop()!;
      const signed = await api('POST', `/signatures/sign/${token}`, {
        body: { signature_text: signers[i]!.name },
        headers: { ...fromIp(uniqueIp()), 'user-agent': `SealTest/${i}` },
      });
      expect(signed.status, signed.text).to.equal(200);
    }
    sig = await waitSealed(member, created.body.id);
    const res = await fetch(`${testEnv().baseUrl}/signatures/${sig.id}/document.pdf`, {
      headers: { authorization: `Bearer ${member.token}` },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    pdf = Buffer.from(await res.arrayBuffer());
    certPem = (await api('GET', '/signatures/seal-certificate')).text;
  });

  it('is served to members only, completed with sealed_at and its hash', async () => {
    expect(sig).to.include({ status: 'completed', sealing_error: null, pdf_sha256: sha256(pdf) });
    expect((await api('GET', `/signatures/${sig.id}/document.pdf`, { token: stranger.token })).status).to.equal(404);
    expect((await api('GET', `/signatures/${sig.id}/document.pdf`)).status).to.equal(401);
  });

  it('pyHanko validates the seal as intact, trusted and covering the whole file; one changed byte fails', () => {
    const ok = pyhanko(pdf, certPem);
    expect(ok.status, ok.out).to.equal(0);
    expect(ok.out).to.match(/:INTACT:TRUSTED,UNTOUCHED/);
    expect(pyhanko(pdf, certPem, true).out).to.contain('The signature covers the entire file.');
    // A byte inside the signed range (the document's first object), not the signature's hex.
    const tampered = Buffer.from(pdf);
    const at = tampered.indexOf('/Producer');
    tampered[at + 2] = tampered[at + 2]! ^ 0x20;
    const bad = pyhanko(tampered, certPem);
    expect(bad.status, bad.out).not.to.equal(0);
    expect(bad.out).to.match(/INVALID|failed/i);
  });

  it('is a PAdES baseline B-B signature: signing-certificate-v2 bound to the signer, the time in /M, none in the CMS', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pades-'));
    writeFileSync(path.join(dir, 'signed.pdf'), pdf);
    const r = spawnSync(
      path.join(repoRoot, '.stack/venv-pyhanko/bin/python'),
      [path.join(repoRoot, 'test/support/pades_baseline.py'), path.join(dir, 'signed.pdf')],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({
      sub_filter: '/ETSI.CAdES.detached',
      signed_attrs: ['content_type', 'message_digest', 'signing_certificate_v2'],
      signing_time_in_dictionary: true,
      ess_v2: true,
      ess_matches_signer: true,
    });
  });

  it('verify reports the seal valid over the whole document', async () => {
    const v = await api<{ valid: boolean; seal: Seal }>('GET', `/signatures/${sig.id}/verify`, { token: member.token });
    expect(v.body.valid).to.equal(true);
    expect(v.body.seal).to.include({ status: 'sealed', valid: true, covers_whole_document: true, service_certificate: true });
  });

  it('has the text, a signature page and an audit page with every trail entry, the document hash and key_id', async () => {
    const pages = await pdfText(pdf);
    const all = pages.join(' ');
    expect(all).to.contain('120. Clause 120. The Supplier shall perform');
    expect(all, 'Polish, Greek and Cyrillic print as written').to.contain(WIDE_TEXT);
    const signaturePage = pages.find((p) => p.includes('Signatures'))!;
    for (const [i, x] of signers.entries()) expect(signaturePage).to.contain(x.name).and.contain(x.email).and.contain(`SealTest/${i}`);
    const stored = await Signature.findById(sig.id);
    const trail = auditOf(stored!);
    expect(trail.map((e) => e.type)).to.include.members(['requested', 'signed', 'completed']);
    const audit = pages.slice(pages.findIndex((p) => p.includes('Audit trail'))).join(' ');
    for (const e of trail) expect(audit).to.contain(`#${e.seq} ${e.type}`).and.contain(e.hash);
    expect(audit)
      .to.contain(stored!.document_hash)
      .and.contain((stored!.certificate as { key_id: string }).key_id);
  });

  it("each signer's completion mail links the sealed PDF through the signing page", async () => {
    const mail = (await waitForMail(signers[0]!.email, 2)).find((m) => m.subject.startsWith('Signed by everyone'))!;
    const link = /\/sign\/([0-9a-f]{24}\.[0-9a-f]{24}\.[0-9a-z]+\.[A-Za-z0-9]{43})/.exec(mail.text)![1]!;
    const page = await fetch(`${testEnv().hostUrl}/sign/${link}`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('Download the signed PDF');
    const copy = await fetch(`${testEnv().hostUrl}/sign/${link}/document.pdf`);
    expect(sha256(Buffer.from(await copy.arrayBuffer()))).to.equal(sha256(pdf));
    // A forged deadline breaks the MAC.
    const forged = link.replace(/\.([0-9a-z]+)\.(?=[A-Za-z0-9]{43}$)/, '.zzzzzz.');
    expect((await fetch(`${testEnv().hostUrl}/sign/${forged}/document.pdf`)).status).to.equal(404);
  });

  it('stops downloading through signing and copy links SIGNED_COPY_DAYS after completion: 410 with a detail', async () => {
    const mail = (await waitForMail(signers[0]!.email, 2)).find((m) => m.subject.startsWith('Signed by everyone'))!;
    const copyLink = /\/sign\/([0-9a-f]{24}\.[0-9a-f]{24}\.[0-9a-z]+\.[A-Za-z0-9]{43})/.exec(mail.text)![1]!;
    const download = (token: string, accept = '*/*') => fetch(`${testEnv().hostUrl}/sign/${token}/document.pdf`, { headers: { accept } });
    // Within the window both links download the sealed PDF.
    for (const t of [signingTokens[0]!, copyLink]) expect((await download(t)).status).to.equal(200);

    const stored = await Signature.findById(sig.id).orFail();
    const completedAt = stored.completed_at!;
    const days = testEnv().services.config.SIGNED_COPY_DAYS;
    await Signature.updateOne({ _id: sig.id }, { $set: { completed_at: new Date(Date.now() - (days + 1) * 86400_000) } });
    try {
      for (const t of [signingTokens[0]!, signingTokens[1]!, copyLink]) {
        const json = await download(t, 'application/json');
        expect(json.status).to.equal(410);
        expect(json.headers.get('content-type')).to.match(/^application\/json/);
        const body = (await json.json()) as { detail: string };
        expect(body.detail).to.contain(`${days} days after everyone signed`);
        const page = await download(t);
        expect(page.status).to.equal(410);
        expect(await page.text()).to.contain('no longer does');
      }
      // The pages no longer offer the download.
      const signed = await fetch(`${testEnv().hostUrl}/sign/${signingTokens[0]}`);
      expect(signed.status).to.equal(200);
      const text = await signed.text();
      expect(text).to.contain('could be downloaded here until').and.not.contain('Download the signed PDF');
      expect((await fetch(`${testEnv().hostUrl}/sign/${copyLink}`)).status).to.equal(410);
      // Members still have it through the API.
      expect(sha256(await sealedPdf(member, sig.id))).to.equal(sha256(pdf));
    } finally {
      await Signature.updateOne({ _id: sig.id }, { $set: { completed_at: completedAt } });
    }
  });

  it('render and seal retried after a crash between them end with one sealed PDF', async () => {
    // As a worker killed after rendering leaves it: the rendered file only.
    await SignedPdf.deleteOne({ _id: sig.id });
    await Signature.updateOne({ _id: sig.id }, { $set: { sealed_at: null, pdf_sha256: null } });
    expect(await renderSignedPdf(sig.id)).to.equal('rendered');
    expect(await renderSignedPdf(sig.id)).to.equal('rendered');
    await sealSignedPdf(testEnv().services, sig.id);
    const first = await SignedPdf.findById(sig.id).lean();
    // A retry of either step after the seal changes nothing.
    expect(await renderSignedPdf(sig.id)).to.equal('sealed');
    await sealSignedPdf(testEnv().services, sig.id);
    const docs = await SignedPdf.find({ _id: sig.id }).lean();
    expect(docs).to.have.length(1);
    expect(docs[0]).to.include({ state: 'sealed', sha256: first!.sha256 });
    const v = await api<{ seal: Seal }>('GET', `/signatures/${sig.id}/verify`, { token: member.token });
    expect(v.body.seal).to.include({ status: 'sealed', valid: true });
  });
});

describe('sealed PDF of record', function () {
  this.timeout(300000);
  let owner: TestUser;
  const original = async () =>
    makePdf([['PDF OF RECORD: Master Purchase Agreement', '1. Goods. The Seller sells the goods.'], ['2. Price. As agreed in the order.']]);

  before(async () => {
    owner = await signUp();
  });

  async function contractWithRecord(bytes: Buffer) {
    const doc = await upload(owner.token, { name: 'mpa.pdf', bytes, type: 'application/pdf' }, 'contract');
    expect(doc.status, JSON.stringify(doc.body)).to.equal(201);
    const c = await api<{ id: string; document_id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Master Purchase Agreement', type: 'service_agreement', counterparty: 'Acme', document_id: doc.body.id },
    });
    expect(c.status, c.text).to.equal(201);
    expect(c.body.document_id).to.equal(doc.body.id);
    return { contractId: c.body.id, documentId: doc.body.id };
  }

  async function sendAndSign(contractId: string) {
    const created = await api<SignatureBody & { record_pdf_sha256: string }>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contractId, signers: [{ name: 'Cy Signer', email: uniqueAddress('cy') }] },
    });
    expect(created.status, created.text).to.equal(201);
    const token = created.body.signers[0]!.signing_url.split('/').pop()!;
    // Before signing, the signer downloads the PDF of record itself.
    const before = await fetch(`${testEnv().hostUrl}/sign/${token}/document.pdf`);
    const unsigned = Buffer.from(await before.arrayBuffer());
    expect(
      (await api('POST', `/signatures/sign/${token}`, { body: { signature_text: 'Cy Signer' }, headers: fromIp(uniqueIp()) })).status,
    ).to.equal(200);
    return { created: created.body, unsigned };
  }

  it('refuses to send a PDF of record too large to seal, up front, with a detail and nothing stored', async () => {
    // 14.5 MB of incompressible attachment: with the evidence pages it would pass the 15 MB a sealed PDF may have.
    const big = await PDFDocument.create();
    big.addPage();
    await big.attach(randomBytes(14.5 * 1024 * 1024), 'scan.bin', { mimeType: 'application/octet-stream' });
    const { contractId } = await contractWithRecord(Buffer.from(await big.save()));
    const before = await Signature.countDocuments({ organization_id: owner.organizationId });
    const refused = await api<{ detail: string }>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contractId, signers: [{ name: 'Cy Signer', email: uniqueAddress('cy') }] },
    });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.detail).to.match(/^contract_id: the contract's PDF of record is 14\.5 MB; .* within 15\.0 MB$/);
    expect(await Signature.countDocuments({ organization_id: owner.organizationId })).to.equal(before);
  });

  it("another organization's document, or a non-PDF, cannot be a contract's PDF of record", async () => {
    const other = await signUp();
    const theirs = await upload(other.token, { name: 'theirs.pdf', bytes: await original(), type: 'application/pdf' }, 'contract');
    const refused = await api('POST', '/contracts', {
      token: owner.token,
      body: { title: 'X', type: 'nda', counterparty: 'Y', document_id: theirs.body.id },
    });
    expect(refused.status).to.equal(404);
    const text = await upload(owner.token, { name: 'terms.txt', bytes: Buffer.from('Some terms.'), type: 'text/plain' }, 'contract');
    const notPdf = await api<{ detail: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'X', type: 'nda', counterparty: 'Y', document_id: text.body.id },
    });
    expect(notPdf.status).to.equal(400);
    expect(notPdf.body.detail).to.match(/^document_id:/);
  });

  it("freezes the file's SHA-256 and appends the signature and audit pages to that file", async () => {
    const bytes = await original();
    const { contractId, documentId } = await contractWithRecord(bytes);
    const { created, unsigned } = await sendAndSign(contractId);
    expect(created).to.include({ record_document_id: documentId, record_pdf_sha256: sha256(bytes) });
    expect(sha256(unsigned)).to.equal(sha256(bytes));
    await waitSealed(owner, created.id);
    const sealed = await sealedPdf(owner, created.id);
    const pages = await pdfText(sealed);
    expect(pages[0]).to.contain('PDF OF RECORD: Master Purchase Agreement');
    expect(pages[1]).to.contain('2. Price. As agreed in the order.');
    expect(pages[2]).to.contain('Signatures').and.contain('Cy Signer');
    expect(pages.slice(3).join(' ')).to.contain('Audit trail');
    const v = pyhanko(sealed, (await api('GET', '/signatures/seal-certificate')).text);
    expect(v.status, v.out).to.equal(0);
    expect(v.out).to.match(/:INTACT:TRUSTED,UNTOUCHED/);
  });

  it('a request sent before copies were frozen, whose uploaded file changed since, is not sealed: the error shows at once', async () => {
    const { contractId, documentId } = await contractWithRecord(await original());
    const created = await api<SignatureBody>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contractId, signers: [{ name: 'Di Signer', email: uniqueAddress('di') }] },
    });
    // As such a request is stored: no frozen copy, only the uploaded file and the hash it froze.
    await FrozenPdf.deleteOne({ _id: frozenPdfId(owner.organizationId, created.body.document_hash) });
    const stored = await Document.findById(documentId).lean();
    writeFileSync(stored!.storage_path, await makePdf([['A different agreement']]));
    const token = created.body.signers[0]!.signing_url.split('/').pop()!;
    expect(
      (await api('POST', `/signatures/sign/${token}`, { body: { signature_text: 'Di Signer' }, headers: fromIp(uniqueIp()) })).status,
    ).to.equal(200);
    let body: SignatureBody | undefined;
    await waitFor(
      async () =>
        Boolean((body = (await api<SignatureBody>('GET', `/signatures/${created.body.id}`, { token: owner.token })).body).sealing_error),
      60000,
      'the sealing error',
    );
    expect(body).to.include({
      status: 'completed',
      sealed_at: null,
      sealing_error: 'the PDF of record was changed or removed after the request was sent',
    });
    const v = await api<{ seal: Seal }>('GET', `/signatures/${created.body.id}/verify`, { token: owner.token });
    expect(v.body.seal).to.include({ status: 'failed', valid: false });
    expect((await api('GET', `/signatures/${created.body.id}/document.pdf`, { token: owner.token })).status).to.equal(409);
  });
});
