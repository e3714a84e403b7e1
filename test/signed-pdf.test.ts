import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api } from './support/http';
import { addMember, fromIp, signUp, uniqueIp, type TestUser } from './support/auth';
import { testEnv } from './support/env';
import { repoRoot } from './support/processes';
import { uniqueAddress, waitForMail } from './support/mailbox';
import { extractPages, MIME } from '../services/documents/extraction';
import { Signature, auditOf } from '../models/signature';
import { SignedPdf } from '../models/signed-pdf';
import { renderSignedPdf, sealSignedPdf } from '../services/signatures/signed-pdf-store';

interface SignatureBody { id: string; status: string; sealed_at: string | null; pdf_sha256: string | null; sealing_error: string | null; signers: Array<{ signing_url: string }> }
interface Seal { status: string; valid: boolean; covers_whole_document: boolean; service_certificate: boolean; reason?: string }

const PYHANKO = path.join(repoRoot, '.stack/venv-pyhanko/bin/pyhanko');
const CONTENT = Array.from({ length: 120 }, (_, i) => `${i + 1}. Clause ${i + 1}. The Supplier shall perform its obligations under clause ${i + 1} with due care.`).join('\n');

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** `pyhanko sign validate` trusting only the service's sealing certificate: its exit code and output. */
function pyhanko(pdf: Buffer, certPem: string, pretty = false) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pyhanko-'));
  writeFileSync(path.join(dir, 'signed.pdf'), pdf);
  writeFileSync(path.join(dir, 'seal.pem'), certPem);
  const r = spawnSync(PYHANKO, ['sign', 'validate', ...(pretty ? ['--pretty-print'] : []), '--trust', path.join(dir, 'seal.pem'), '--trust-replace', path.join(dir, 'signed.pdf')], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

async function pdfText(pdf: Buffer): Promise<string[]> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pdf-text-')), 'signed.pdf');
  writeFileSync(file, pdf);
  return (await extractPages(file, MIME.pdf)).map((p) => p.text.replace(/\s+/g, ' '));
}

async function waitSealed(u: TestUser, id: string): Promise<SignatureBody> {
  // Sealing takes about a second; a loaded machine (and a first certificate) takes longer.
  const deadline = Date.now() + 150000;
  for (;;) {
    const res = await api<SignatureBody>('GET', `/signatures/${id}`, { token: u.token });
    if (res.body.sealed_at) return res.body;
    if (res.body.sealing_error || Date.now() > deadline) throw new Error(`not sealed: ${res.text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('sealed PDF', function () {
  this.timeout(300000);
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let sig: SignatureBody;
  let pdf: Buffer;
  let certPem: string;
  const signers = [{ name: 'Amélie Signer', email: uniqueAddress('amelie') }, { name: 'Bo Signer', email: uniqueAddress('bo') }];

  before(async () => {
    owner = await signUp();
    [member, stranger] = await Promise.all([addMember(owner, 'member'), signUp()]);
    const c = await api<{ id: string }>('POST', '/contracts', { token: owner.token, body: { title: `Supply agreement ${randomUUID().slice(0, 6)}`, type: 'service_agreement', counterparty: 'Acme', content: CONTENT } });
    const created = await api<SignatureBody>('POST', '/signatures', { token: member.token, body: { contract_id: c.body.id, signers } });
    expect(created.status, created.text).to.equal(201);
    for (const [i, x] of created.body.signers.entries()) {
      const token = x.signing_url.split('/').pop()!;
      const signed = await api('POST', `/signatures/sign/${token}`, { body: { signature_text: signers[i]!.name }, headers: { ...fromIp(uniqueIp()), 'user-agent': `SealTest/${i}` } });
      expect(signed.status, signed.text).to.equal(200);
    }
    sig = await waitSealed(member, created.body.id);
    const res = await fetch(`${testEnv().baseUrl}/signatures/${sig.id}/document.pdf`, { headers: { authorization: `Bearer ${member.token}` } });
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

  it('verify reports the seal valid over the whole document', async () => {
    const v = await api<{ valid: boolean; seal: Seal }>('GET', `/signatures/${sig.id}/verify`, { token: member.token });
    expect(v.body.valid).to.equal(true);
    expect(v.body.seal).to.include({ status: 'sealed', valid: true, covers_whole_document: true, service_certificate: true });
  });

  it('has the text, a signature page and an audit page with every trail entry, the document hash and key_id', async () => {
    const pages = await pdfText(pdf);
    const all = pages.join(' ');
    expect(all).to.contain('120. Clause 120. The Supplier shall perform');
    const signaturePage = pages.find((p) => p.includes('Signatures'))!;
    for (const [i, x] of signers.entries()) expect(signaturePage).to.contain(x.name).and.contain(x.email).and.contain(`SealTest/${i}`);
    const stored = await Signature.findById(sig.id);
    const trail = auditOf(stored!);
    expect(trail.map((e) => e.type)).to.include.members(['requested', 'signed', 'completed']);
    const audit = pages.slice(pages.findIndex((p) => p.includes('Audit trail'))).join(' ');
    for (const e of trail) expect(audit).to.contain(`#${e.seq} ${e.type}`).and.contain(e.hash);
    expect(audit).to.contain(stored!.document_hash).and.contain((stored!.certificate as { key_id: string }).key_id);
  });

  it('each signer\'s completion mail links the sealed PDF through the signing page', async () => {
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
