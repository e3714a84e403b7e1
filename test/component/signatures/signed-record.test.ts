/**
 * The signed record (issue 29): what a signer reads is what is downloaded, sealed and hashed;
 * the contract's document cannot change under a pending request; a HEAD or a prefetch is no
 * view; the sealed PDF prints the text as the page shows it (read back with poppler's
 * pdftotext and rendered with pdftoppm).
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api } from '../../support/http';
import { fromIp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { makePdf, upload } from '../../support/documents';
import { uniqueAddress } from '../../support/mailbox';
import { sealedPdf, tokenOf, waitSealed, type SignatureBody } from '../../support/signatures';
import { Document } from '../../../models/document';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The signing page as a browser gets it, from an address of its own. */
async function page(p: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${testEnv().hostUrl}${p}`, {
    method: init.method ?? 'GET',
    headers: { ...fromIp(uniqueIp()), ...init.headers },
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

function tempFile(name: string, bytes: Buffer): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'signed-record-')), name);
  writeFileSync(file, bytes);
  return file;
}

/** `pdftotext` (poppler) of the whole file, or of pages `first`..`last`. */
function pdftotext(pdf: Buffer, args: string[] = []): string {
  return execFileSync('pdftotext', [...args, tempFile('doc.pdf', pdf), '-'], { encoding: 'utf8' });
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

/**
 * Each line of page `n` as pdftotext -bbox-layout places it, top to bottom: its text, top and
 * right edge (PDF points). Pieces on one baseline are one line (a tab's gap splits them).
 */
function linesOfPage(pdf: Buffer, n: number): Array<{ text: string; top: number; right: number }> {
  const xhtml = pdftotext(pdf, ['-bbox-layout', '-f', String(n), '-l', String(n)]);
  const pieces = [...xhtml.matchAll(/<line xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([\s\S]*?)<\/line>/g)].map(
    (m) => ({
      left: Number(m[1]),
      top: Number(m[2]),
      right: Number(m[3]),
      text: [...m[4]!.matchAll(/<word[^>]*>([^<]*)<\/word>/g)]
        .map((w) => w[1]!.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_e, k: string) => XML_ENTITIES[k]!))
        .join(' '),
    }),
  );
  const lines: Array<{ text: string; top: number; right: number }> = [];
  for (const p of pieces.sort((a, b) => a.top - b.top || a.left - b.left)) {
    const last = lines.at(-1);
    if (last && Math.abs(last.top - p.top) < 0.5)
      Object.assign(last, { text: `${last.text} ${p.text}`, right: Math.max(last.right, p.right) });
    else lines.push({ text: p.text, top: p.top, right: p.right });
  }
  return lines;
}

/** Page `n` rendered by pdftoppm in grey at `dpi`: its size and one byte per pixel (0 black, 255 white). */
function renderPage(pdf: Buffer, n: number, dpi: number): { width: number; height: number; pixels: Buffer } {
  const file = tempFile('doc.pdf', pdf);
  execFileSync('pdftoppm', ['-gray', '-r', String(dpi), '-f', String(n), '-l', String(n), '-singlefile', file, `${file}-page`]);
  const pgm = readFileSync(`${file}-page.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 32).toString('latin1'))!;
  return { width: Number(header[1]), height: Number(header[2]), pixels: pgm.subarray(header[0].length) };
}

describe('the signed record', function () {
  this.timeout(300000);
  let owner: TestUser;

  before(async () => {
    owner = await signUp();
  });

  async function contract(body: Record<string, unknown>) {
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: `Agreement ${randomUUID().slice(0, 6)}`, type: 'service_agreement', counterparty: 'Acme', ...body },
    });
    expect(c.status, c.text).to.equal(201);
    return c.body.id;
  }

  async function send(contractId: string, name = 'Ada Signer') {
    const created = await api<SignatureBody & { record_pdf_sha256: string | null }>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contractId, signers: [{ name, email: uniqueAddress('record') }] },
    });
    expect(created.status, created.text).to.equal(201);
    return { ...created.body, token: tokenOf(created.body.signers[0]!.signing_url) };
  }

  async function signAndSeal(sig: { id: string; token: string }, name = 'Ada Signer') {
    const signed = await api('POST', `/signatures/sign/${sig.token}`, { body: { signature_text: name }, headers: fromIp(uniqueIp()) });
    expect(signed.status, signed.text).to.equal(200);
    await waitSealed(owner, sig.id);
    return sealedPdf(owner, sig.id);
  }

  it("with a PDF of record, the page shows that PDF's text page by page, downloads its frozen bytes, and the seal and every hash are of them", async () => {
    const record = await makePdf([['MASTER SERVICES AGREEMENT (PDF OF RECORD)', 'Price: 900 USD per month.'], ['2. Term. Two years.']]);
    const doc = await upload(owner.token, { name: 'msa.pdf', bytes: record, type: 'application/pdf' }, 'contract');
    expect(doc.status, JSON.stringify(doc.body)).to.equal(201);
    const contractId = await contract({ content: 'Price: 100 USD', document_id: doc.body.id });
    const sig = await send(contractId);
    expect(sig.document_hash).to.equal(sha256(record));
    expect(sig.record_pdf_sha256).to.equal(sha256(record));

    // The uploaded file changes afterwards: the request keeps what it froze.
    const stored = await Document.findById(doc.body.id).lean();
    writeFileSync(stored!.storage_path, await makePdf([['Price: 1 USD']]));

    const shown = await page(`/sign/${sig.token}`);
    expect(shown.status).to.equal(200);
    const html = shown.bytes.toString('utf8');
    expect(html).to.contain('Page 1 of 2').and.contain('Page 2 of 2');
    expect(html).to.match(
      /id="page-1"[^]*MASTER SERVICES AGREEMENT \(PDF OF RECORD\)[^]*Price: 900 USD per month\.[^]*id="page-2"[^]*2\. Term\. Two years\./,
    );
    expect(html).not.to.contain('Price: 100 USD').and.not.to.contain('Price: 1 USD');
    const download = await page(`/sign/${sig.token}/document.pdf`);
    expect(download.status).to.equal(200);
    expect(sha256(download.bytes), 'the download is the PDF of record as frozen').to.equal(sha256(record));
    const json = await api<{ document: string; document_pages: string[]; document_hash: string }>('GET', `/signatures/sign/${sig.token}`);
    expect(json.body.document).to.equal('');
    expect(json.body.document_pages).to.have.length(2);
    expect(json.body.document_pages[0]).to.contain('Price: 900 USD per month.');
    expect(json.body.document_hash).to.equal(sha256(record));

    const sealed = await signAndSeal(sig);
    const text = pdftotext(sealed).replace(/\s+/g, ' ');
    expect(text).to.contain('Price: 900 USD per month.').and.contain('2. Term. Two years.');
    expect(text).not.to.contain('Price: 100 USD').and.not.to.contain('Price: 1 USD');
    expect(text, 'the requested audit entry names the frozen hash').to.match(
      new RegExp(`#0 requested .*document SHA-256 ${sha256(record)} \\(PDF of record\\)`),
    );
    const v = await api<{ valid: boolean; document_hash: string; certificate: { payload: string }; reasons?: string[] }>(
      'GET',
      `/signatures/${sig.id}/verify`,
      { token: owner.token },
    );
    expect(v.body.reasons).to.equal(undefined);
    expect(v.body.valid).to.equal(true);
    expect(v.body.document_hash).to.equal(sha256(record));
    expect((JSON.parse(v.body.certificate.payload) as { document_hash: string }).document_hash).to.equal(sha256(record));
  });

  it('while a request is pending, changing the content or the PDF of record answers 409 contract_has_pending_signature', async () => {
    const content = 'Price: 100 USD';
    const contractId = await contract({ content });
    const sig = await send(contractId);
    expect(sig.document_hash).to.equal(sha256(content));
    const other = await upload(
      owner.token,
      { name: 'other.pdf', bytes: await makePdf([['Price: 5 USD']]), type: 'application/pdf' },
      'contract',
    );
    for (const change of [{ content: 'Price: 1 USD' }, { document_id: other.body.id }]) {
      const refused = await api<{ detail: string }>('PUT', `/contracts/${contractId}`, { token: owner.token, body: change });
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.headers.get('x-error-code')).to.equal('contract_has_pending_signature');
      expect(refused.body.detail).to.contain(`signature request ${sig.id} is pending`);
    }
    // Other fields, and the same content sent again, are no change to the document.
    const renamed = await api('PUT', `/contracts/${contractId}`, { token: owner.token, body: { title: 'Renamed', content } });
    expect(renamed.status, renamed.text).to.equal(200);
    expect((await api<{ content: string }>('GET', `/contracts/${contractId}`, { token: owner.token })).body.content).to.equal(content);
    const openapi = await api('GET', '/openapi.json');
    expect(openapi.text).to.contain('contract_has_pending_signature');

    expect((await api('POST', `/signatures/${sig.id}/cancel`, { token: owner.token })).status).to.equal(200);
    const changed = await api('PUT', `/contracts/${contractId}`, { token: owner.token, body: { content: 'Price: 1 USD' } });
    expect(changed.status, changed.text).to.equal(200);
  });

  it('HEAD requests and prefetches of a signing link do not mark the signer as having viewed; opening it does', async () => {
    const sig = await send(await contract({ content: '1. Scope. Everything.' }));
    const viewed = async () => (await api<SignatureBody>('GET', `/signatures/${sig.id}`, { token: owner.token })).body.signers[0]!;
    expect((await page(`/sign/${sig.token}`, { method: 'HEAD' })).status).to.equal(200);
    const prefetches: Array<Record<string, string>> = [
      { 'sec-purpose': 'prefetch' },
      { 'sec-purpose': 'prefetch;prerender' },
      { purpose: 'prefetch' },
    ];
    for (const headers of prefetches) {
      const prefetched = await page(`/sign/${sig.token}`, { headers });
      expect(prefetched.status).to.equal(200);
      expect(prefetched.bytes.toString('utf8')).to.contain('1. Scope. Everything.');
    }
    expect((await api('HEAD', `/signatures/sign/${sig.token}`)).status).to.equal(200);
    expect(await viewed()).to.include({ status: 'pending', viewed_at: null });

    expect((await page(`/sign/${sig.token}`)).status).to.equal(200);
    expect((await viewed()).status).to.equal('viewed');
  });

  it('the sealed PDF keeps paragraphs and line breaks, wraps long lines inside the page, prints no "?" and non-ASCII letters as written', async () => {
    const fees =
      '2. Fees. The Customer pays the monthly fee within thirty days of each invoice; late payment bears interest at the statutory rate, and after a written reminder the Supplier may suspend the services until every overdue amount is paid in full.';
    // A decomposed "é" (e + combining acute), a tab, a bell and a zero-width space, as pasted text brings them.
    const notices = 'Zoë Müller — Łódź; Αθήνα; Кирилл Петров; cafe\u0301 Straße.\tTel.\u0007 +49\u200b 30 1234';
    const content = `1. Services. The Supplier provides the services of Schedule 1.\n\n${fees}\r\n\r\n3. Notices.\n${notices}\n4. Counterparts.`;
    const sig = await send(await contract({ content }));
    const sealed = await signAndSeal(sig);

    const lines = linesOfPage(sealed, 1);
    const at = (start: string) => lines.findIndex((l) => l.text.startsWith(start));
    const [services, feesAt, noticesAt, notice, counterparts] = ['1. Services.', '2. Fees.', '3. Notices.', 'Zoë', '4. Counterparts.'].map(
      at,
    );
    expect([services, feesAt, noticesAt, notice, counterparts], JSON.stringify(lines)).to.satisfy((xs: number[]) =>
      xs.every((x, i) => x > 0 && (i === 0 || x > xs[i - 1]!)),
    );
    expect(lines[services!]!.text).to.equal('1. Services. The Supplier provides the services of Schedule 1.');
    // The fees paragraph wraps onto more lines; the blank lines between paragraphs stay blank.
    expect(noticesAt! - feesAt!).to.be.greaterThan(1);
    const leading = lines[feesAt! + 1]!.top - lines[feesAt!]!.top;
    expect(lines[feesAt!]!.top - lines[services!]!.top, 'a blank line before the fees').to.be.closeTo(2 * leading, 1);
    expect(lines[noticesAt!]!.top - lines[noticesAt! - 1]!.top, 'a blank line before the notices').to.be.closeTo(2 * leading, 1);
    expect(lines[notice!]!.top - lines[noticesAt!]!.top, 'a line break, no blank line').to.be.closeTo(leading, 1);
    expect(
      lines
        .slice(feesAt, noticesAt)
        .map((l) => l.text)
        .join(' '),
    ).to.equal(fees);
    expect(lines[notice!]!.text).to.equal('Zoë Müller — Łódź; Αθήνα; Кирилл Петров; café Straße. Tel. +49 30 1234');

    const all = pdftotext(sealed);
    expect(all).not.to.contain('?');
    expect(all).to.contain('Signatures').and.contain('Audit trail');

    // Rendered, the text stays inside the page: ink on the page, none in the right margin.
    const { width, height, pixels } = renderPage(sealed, 1, 72);
    const margin = Math.round(width * (40 / 595.28));
    let ink = 0;
    let outside = 0;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++)
        if (pixels[y * width + x]! < 128) {
          ink++;
          if (x >= width - margin) outside++;
        }
    expect(ink).to.be.greaterThan(1000);
    expect(outside).to.equal(0);
    expect(Math.max(...lines.map((l) => l.right))).to.be.at.most(595.28 - 56 + 1);
  });
});
