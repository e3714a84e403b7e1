import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { testEnv, testEnvironment } from '../../support/env';
import { startApiProcess } from '../../support/processes';
import { Signature } from '../../../models/signature';
import { csrfOf, pageBrowser } from '../../support/page-browser';

interface Created {
  id: string;
  signers: Array<{ id: string; signing_url: string }>;
}

const CONTENT =
  "MUTUAL NON-DISCLOSURE AGREEMENT\n1. Confidential Information. Each party keeps the other's information secret.\n2. Term. Three years.";

describe('signing page (HTTP)', () => {
  let owner: TestUser;
  let member: TestUser;
  before(async () => {
    owner = await signUp();
    member = await addMember(owner, 'member');
  });

  async function request(opts: { title?: string; ordered?: boolean; signers?: Array<{ name: string; email: string }> } = {}) {
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: opts.title ?? `NDA ${randomUUID().slice(0, 8)}`, type: 'nda', counterparty: 'Initech', content: CONTENT },
    });
    const signers = opts.signers ?? [
      { name: 'Ada Signer', email: 'ada@example.test' },
      { name: 'Ben Signer', email: 'ben@example.test' },
    ];
    const res = await api<Created>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: c.body.id, signers, ordered: opts.ordered ?? false, message: 'Please sign <today>' },
    });
    expect(res.status, res.text).to.equal(201);
    return { ...res.body, paths: res.body.signers.map((x) => new URL(x.signing_url).pathname) };
  }

  it('links to /sign/<token>; the page shows requester, title, document, consent and labelled fields under a strict CSP', async () => {
    const r = await request({ title: 'NDA <script>alert(1)</script>' });
    expect(r.signers[0]!.signing_url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/sign\/[A-Za-z0-9]{43}$/);
    const page = await pageBrowser().get(r.paths[0]!);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp)
      .to.contain("default-src 'none'")
      .and.contain("style-src 'self'")
      .and.contain("form-action 'self'")
      .and.contain("frame-ancestors 'none'");
    expect(csp).not.to.contain('unsafe-inline');
    expect(page.headers.get('cache-control')).to.equal('no-store');
    expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(page.headers.get('set-cookie'))
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Strict/i);
    expect(page.text).to.contain('<html lang="en">');
    expect(page.text).not.to.match(/<script/i);
    expect(page.text).not.to.contain('<script>alert(1)</script>');
    expect(page.text).to.contain('NDA &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).to.contain('Test Owner asks you to sign');
    expect(page.text).to.contain('Please sign &lt;today&gt;');
    expect(page.text).to.contain('1. Confidential Information. Each party keeps the other&#39;s information secret.');
    expect(page.text).to.contain('agree to use electronic records');
    expect(page.text)
      .to.match(/<label for="consent">/)
      .and.match(/id="consent"/);
    expect(page.text)
      .to.match(/<label for="signature-name">/)
      .and.match(/id="signature-name"/);
    expect(page.text)
      .to.match(/<label for="decline-reason">/)
      .and.match(/id="decline-reason"/);
    // Viewing marks the signer as having viewed, as the JSON endpoint does.
    const got = await api<{ signers: Array<{ status: string }> }>('GET', `/signatures/${r.id}`, { token: member.token });
    expect(got.body.signers[0]!.status).to.equal('viewed');
    // The stylesheet is same-origin; the download link gives the document to sign.
    expect((await pageBrowser().get('/assets/signing-page.css')).headers.get('content-type')).to.match(/^text\/css/);
    const pdf = await fetch(`${testEnv().hostUrl}${r.paths[0]}/document.pdf`);
    expect(pdf.status).to.equal(200);
    expect(pdf.headers.get('content-type')).to.equal('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).to.equal('%PDF-');
  });

  it("refuses a post without the CSRF cookie, or with another link's token, and signs with both", async () => {
    const r = await request();
    const a = pageBrowser();
    const form = csrfOf((await a.get(r.paths[0]!)).text);
    const noCookie = await a.post(r.paths[0]!, { csrf: form, consent: 'yes', signature_text: 'Ada Signer' }, false);
    expect(noCookie.status).to.equal(403);
    expect(noCookie.headers.get('content-type')).to.match(/^text\/html/);
    const otherLink = await a.post(r.paths[1]!, { csrf: form, consent: 'yes', signature_text: 'Ben Signer' });
    expect(otherLink.status).to.equal(403);
    const noConsent = await a.post(r.paths[0]!, { csrf: form, signature_text: 'Ada Signer' });
    expect(noConsent.status).to.equal(400);
    expect(noConsent.text).to.contain('Tick the box to agree to sign electronically').and.contain('value="Ada Signer"');
    const signed = await a.post(r.paths[0]!, { csrf: form, consent: 'yes', signature_text: 'Ada Signer' });
    expect(signed.status).to.equal(303);
    expect(signed.headers.get('location')).to.equal(r.paths[0]);
    const after = await a.get(r.paths[0]!);
    expect(after.text).to.contain('You signed this document on');
    const stored = await Signature.findById(r.id).lean();
    expect(stored!.signers[0]).to.include({ status: 'signed', signature_text: 'Ada Signer', user_agent: 'PageTest/1.0' });
  });

  it('has a page for waiting, declined (by the signer and by another), cancelled, expired and unknown links', async () => {
    const ordered = await request({ ordered: true });
    const second = pageBrowser();
    const waiting = await second.get(ordered.paths[1]!);
    expect(waiting.text).to.contain('Not your turn yet').and.contain('One earlier signer has not signed yet');
    expect(waiting.text).not.to.contain('name="csrf"');

    const first = pageBrowser();
    const csrf = csrfOf((await first.get(ordered.paths[0]!)).text);
    const declined = await first.post(`${ordered.paths[0]}/decline`, { csrf, reason: 'Clause 2 <is> too long' });
    expect(declined.status).to.equal(303);
    const mine = await first.get(ordered.paths[0]!);
    expect(mine.text).to.contain('You declined').and.contain('Clause 2 &lt;is&gt; too long');
    expect((await second.get(ordered.paths[1]!)).text).to.contain('Another signer declined this document');

    const cancelled = await request();
    expect((await api('POST', `/signatures/${cancelled.id}/cancel`, { token: member.token })).status).to.equal(200);
    expect((await pageBrowser().get(cancelled.paths[0]!)).text)
      .to.contain('Request cancelled')
      .and.contain('Test Owner cancelled this signature request');

    const expired = await request();
    await Signature.updateOne({ _id: expired.id }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect((await pageBrowser().get(expired.paths[0]!)).text).to.contain('This link has expired');

    const unknown = await pageBrowser().get(`/sign/${'x'.repeat(43)}`);
    expect(unknown.status).to.equal(404);
    expect(unknown.text).to.contain('This signing link is not known');
  });

  it('keeps the token out of the request log, the redirect included', async function () {
    this.timeout(180000);
    const logFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'sign-log-')), 'api.log');
    const proc = await startApiProcess({ ...testEnvironment(), LOG_LEVEL: 'info' }, logFile);
    try {
      const r = await request();
      const token = r.paths[0]!.split('/').pop()!;
      const b = pageBrowser(proc.url);
      const csrf = csrfOf((await b.get(`/sign/${token}`)).text);
      expect((await b.post(`/sign/${token}`, { csrf, consent: 'yes', signature_text: 'Ada Signer' })).status).to.equal(303);
      await new Promise((res) => setTimeout(res, 500)); // the log is written asynchronously
      const log = readFileSync(logFile, 'utf8');
      expect(log).to.contain('/sign/[redacted]');
      expect(log).not.to.contain(token);
    } finally {
      await proc.stop();
    }
  });
});
