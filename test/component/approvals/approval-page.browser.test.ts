/**
 * The approval page in a real browser (test/support/chromium.ts): the approver opens the
 * link mailed to them, at desktop width and at 420 px, reads, approves, and the contract can
 * then be sent for signature. axe-core runs on each page. Screenshots go to
 * test-output/approval-page/ (ignored); docs/approval-page*.png are copies of them.
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { approvalLinkPath, waitForSubject } from '../../support/mailbox';
import { testEnv } from '../../support/env';
import { repoRoot } from '../../support/processes';
import { axeViolations, launchChromium, servicePage } from '../../support/chromium';

const OUT = path.join(repoRoot, 'test-output', 'approval-page');

const V1 = [
  'MASTER HOSTING AGREEMENT',
  '1. Services. The Supplier hosts the Customer Data in the European Union and keeps it available 99.5% of each month.',
  '2. Fees. The Customer pays the monthly fees within thirty (30) days of each invoice.',
  "3. Liability. Each party's liability is capped at the fees paid in the twelve (12) months before the claim.",
  '4. Governing law. This Agreement is governed by the laws of the State of Texas.',
].join('\n');
const V2 = V1.replace('99.5% of each month', '99.9% of each month, and backs it up daily').replace(
  'thirty (30) days',
  'forty-five (45) days',
);

describe('approval page (Chromium)', function () {
  this.timeout(180000);
  let browser: Browser;
  let owner: TestUser;
  let approver: TestUser;
  const outside: string[] = [];
  const contexts: BrowserContext[] = [];

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    browser = await launchChromium();
    owner = await signUp();
    approver = await addMember(owner, 'member');
    const policy = await api('POST', '/settings/approval-policies', {
      token: owner.token,
      body: {
        name: 'Finance and legal',
        conditions: { value_over: 100_000, terms_differ_from_standard: { governing_law: 'New York', payment_terms: '30 days' } },
        approvers: { kind: 'members', user_ids: [approver.user.id] },
      },
    });
    expect(policy.status, policy.text).to.equal(201);
  });
  after(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
  });

  async function open(width: number, height: number): Promise<Page> {
    const page = await servicePage(browser, { viewport: { width, height } }, outside);
    contexts.push(page.context());
    return page;
  }

  it('opens the mailed link at desktop width and at 420 px, approves, and the signature request goes through', async () => {
    const title = `Hosting MSA with Northwind ${randomUUID().slice(0, 6)}`;
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title, type: 'service_agreement', counterparty: 'Northwind Traders', value: 480_000, currency: 'EUR', content: V1 },
    });
    expect(c.status, c.text).to.equal(201);
    expect((await api('PUT', `/contracts/${c.body.id}`, { token: owner.token, body: { content: V2 } })).status).to.equal(200);
    const terms = await api('PUT', `/contracts/${c.body.id}/terms`, {
      token: owner.token,
      body: {
        terms: {
          governing_law: { value: 'the laws of the State of Texas', normalized: 'Texas' },
          payment_terms: { value: 'forty-five (45) days of each invoice', normalized: 45 },
        },
      },
    });
    expect(terms.status, terms.text).to.equal(200);
    const send = () =>
      api('POST', '/signatures', {
        token: owner.token,
        body: { contract_id: c.body.id, signers: [{ name: 'Nora Northwind', email: 'nora@example.test' }] },
      });
    expect((await send()).status, 'not approved yet').to.equal(409);
    const started = await api<{ approval: { id: string } }>('POST', `/contracts/${c.body.id}/approvals`, {
      token: owner.token,
      body: {},
    });
    expect(started.status, started.text).to.equal(201);

    const mail = await waitForSubject(approver.email, `approval requested for ${title}`);
    const url = `${testEnv().hostUrl}${approvalLinkPath(mail)}`;

    const desk = await open(1280, 900);
    const opened = await desk.goto(url);
    expect(opened!.status()).to.equal(200);
    expect(opened!.headers()['content-security-policy']).to.contain("default-src 'none'");
    expect(await desk.getByRole('heading', { level: 1 }).textContent()).to.equal(title);
    expect(await desk.locator('dl.facts').innerText())
      .to.contain('Northwind Traders')
      .and.contain('480,000 EUR');
    const governing = desk.getByRole('row', { name: /governing law/ });
    expect(await governing.innerText())
      .to.contain('State of Texas')
      .and.contain('New York')
      .and.contain('(differs)');
    expect(await desk.getByRole('heading', { name: 'Changes since version 1, the previous one' }).count()).to.equal(1);
    expect(await desk.locator('.redline ins').allTextContents()).to.include.members(['9', ', and backs it up daily', 'forty-five']);
    await desk.screenshot({ path: path.join(OUT, 'approval-page.png'), fullPage: true });
    expect(await axeViolations(desk), 'serious or critical accessibility violations at desktop width').to.deep.equal([]);

    const narrow = await open(420, 900);
    expect((await narrow.goto(url))!.status()).to.equal(200);
    // Nothing wider than the screen: no sideways scrolling at 420 px.
    expect(await narrow.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(420);
    await narrow.screenshot({ path: path.join(OUT, 'approval-page-narrow.png'), fullPage: true });
    expect(await axeViolations(narrow), 'at 420 px').to.deep.equal([]);

    await desk.getByLabel('Comment (needed to reject)').fill('Payment terms accepted for this customer.');
    await Promise.all([desk.waitForURL(url), desk.getByRole('button', { name: 'Approve' }).click()]);
    expect(await desk.getByRole('heading', { level: 2 }).first().textContent()).to.equal('You approved');
    await desk.screenshot({ path: path.join(OUT, 'approved.png') });
    expect(await axeViolations(desk), 'on the approved page').to.deep.equal([]);

    const approval = await api<{ status: string; groups: Array<{ decisions: Array<{ name: string; comment: string | null }> }> }>(
      'GET',
      `/approvals/${started.body.approval.id}`,
      { token: owner.token },
    );
    expect(approval.body.status).to.equal('approved');
    expect(approval.body.groups[0]!.decisions[0]).to.include({ name: 'Test member', comment: 'Payment terms accepted for this customer.' });
    const sent = await send();
    expect(sent.status, sent.text).to.equal(201);
    expect(outside, 'requests outside the service').to.deep.equal([]);
  });
});
