/**
 * The signing page in a real browser (test/support/chromium.ts): a phone-sized viewport,
 * every request outside the service refused and recorded, axe-core run in the page.
 * Screenshots go to test-output/signing-page/ (ignored).
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { repoRoot } from '../../support/processes';
import { axeViolations as axe, launchChromium, servicePage } from '../../support/chromium';
import { Signature } from '../../../models/signature';

const OUT = path.join(repoRoot, 'test-output', 'signing-page');

const CONTENT = [
  'MUTUAL NON-DISCLOSURE AGREEMENT',
  '1. Purpose. The parties wish to explore a business relationship and will share Confidential Information for that purpose only.',
  "2. Obligations. The Recipient shall keep the Discloser's Confidential Information secret and use it only for the Purpose.",
  '3. Term. This Agreement lasts three (3) years from the Effective Date.',
].join('\n');

describe('signing page (Chromium)', function () {
  this.timeout(180000);
  let browser: Browser;
  let owner: TestUser;
  const outside: string[] = [];
  const contexts: BrowserContext[] = [];

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    browser = await launchChromium();
    owner = await signUp();
  });
  after(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
  });

  /** A phone's browser with its own client address; anything not from the service is refused and noted. */
  async function phone(): Promise<Page> {
    const page = await servicePage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }, outside);
    contexts.push(page.context());
    return page;
  }

  it('one signer reads, consents and signs; the other declines with a reason', async () => {
    const title = `NDA with Initech ${randomUUID().slice(0, 6)}`;
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title, type: 'nda', counterparty: 'Initech', content: CONTENT },
    });
    const sig = await api<{ id: string; signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
      token: owner.token,
      body: {
        contract_id: c.body.id,
        signers: [
          { name: 'Ada Lovelace', email: 'ada@example.test' },
          { name: 'Ben Declines', email: 'ben@example.test' },
        ],
        message: 'Please sign before Friday.',
      },
    });
    expect(sig.status, sig.text).to.equal(201);
    const [adaUrl, benUrl] = sig.body.signers.map((x) => `${testEnv().hostUrl}${new URL(x.signing_url).pathname}`);

    const ada = await phone();
    const opened = await ada.goto(adaUrl!);
    expect(opened!.status()).to.equal(200);
    expect(opened!.headers()['content-security-policy']).to.contain("default-src 'none'");
    expect(await ada.getAttribute('html', 'lang')).to.equal('en');
    expect(await ada.getByRole('heading', { level: 1 }).textContent()).to.equal(title);
    expect(await ada.locator('#consent-text').textContent())
      .to.contain('you agree to use electronic records')
      .and.contain('download a copy');
    expect(await ada.locator('article.page').innerText()).to.contain('2. Obligations. The Recipient shall keep');
    expect(await ada.getByRole('link', { name: 'Download the document as PDF' }).count()).to.equal(1);
    await ada.screenshot({ path: path.join(OUT, '1-sign-form.png'), fullPage: true });
    await ada.screenshot({ path: path.join(OUT, 'readme-sign-form.png') });
    expect(await axe(ada), 'serious or critical accessibility violations on the form').to.deep.equal([]);

    await ada.getByLabel('I have read the document and I agree to sign it electronically.').check();
    await ada.getByLabel('Type your full name as your signature').fill('Ada Lovelace');
    await Promise.all([ada.waitForURL(adaUrl!), ada.getByRole('button', { name: 'Sign', exact: true }).click()]);
    expect(await ada.getByRole('heading', { level: 2 }).first().textContent()).to.equal('You signed');
    expect(await ada.locator('main').innerText()).to.contain('You signed this document on');
    await ada.screenshot({ path: path.join(OUT, '2-signed.png'), fullPage: true });
    expect(await axe(ada), 'on the signed page').to.deep.equal([]);

    const ben = await phone();
    await ben.goto(benUrl!);
    await ben.getByText('I do not want to sign this document').click();
    await ben.getByLabel(/Why are you declining\?/).fill('Clause 3: the term should be two years.');
    await Promise.all([ben.waitForURL(benUrl!), ben.getByRole('button', { name: 'Decline' }).click()]);
    expect(await ben.getByRole('heading', { level: 2 }).first().textContent()).to.equal('You declined');
    expect(await ben.locator('blockquote').textContent()).to.equal('Clause 3: the term should be two years.');
    await ben.screenshot({ path: path.join(OUT, '3-declined.png'), fullPage: true });
    expect(await axe(ben), 'on the declined page').to.deep.equal([]);

    const stored = await Signature.findById(sig.body.id).lean();
    expect(stored!.status).to.equal('declined');
    expect(stored!.signers.map((x) => [x.status, x.signature_text, x.decline_reason])).to.deep.equal([
      ['signed', 'Ada Lovelace', null],
      ['declined', null, 'Clause 3: the term should be two years.'],
    ]);
    expect(stored!.signers[0]!.user_agent).to.contain('Chrome');

    // Ada's link now shows that another signer declined.
    await ada.goto(adaUrl!);
    expect(await ada.locator('main').innerText()).to.contain('You signed this document on');
    expect(outside, 'requests outside the service').to.deep.equal([]);
  });

  it('an unknown link is a 404 page without violations', async () => {
    const page = await phone();
    const res = await page.goto(`${testEnv().hostUrl}/sign/${'Z'.repeat(43)}`);
    expect(res!.status()).to.equal(404);
    expect(await page.locator('h1').textContent()).to.equal('Link not found');
    await page.screenshot({ path: path.join(OUT, '4-unknown.png') });
    expect(await axe(page)).to.deep.equal([]);
    // The check itself sees a violation: an input without a label is one.
    await page.evaluate("document.querySelector('main').append(document.createElement('input'))");
    expect((await axe(page)).map((v) => v.id)).to.include('label');
    expect(outside).to.deep.equal([]);
  });
});
