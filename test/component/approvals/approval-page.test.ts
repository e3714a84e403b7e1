/**
 * The approver's page over HTTP: the personal link from the approval mail (read from
 * GreenMail), what a GET may and may not do, and each way a post or a link is refused.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { addMember, enableMfa, nextTotp, signUp, type TestUser } from '../../support/auth';
import { approvalLinkPath, waitForSubject } from '../../support/mailbox';
import { csrfOf, pageBrowser } from '../../support/page-browser';
import { testEnv } from '../../support/env';
import { approvalLinkToken } from '../../../services/approvals/approval-link';
import { approvalFormToken } from '../../../services/approvals/submit-approval-form';
import { User } from '../../../models/user';

interface Approval {
  id: string;
  status: string;
  version_number: number;
  version_sha256: string;
  groups: Array<{ step: number; status: string; decisions: Array<{ user_id: string; decision: string; comment: string | null }> }>;
}

const V1 = 'HOSTING AGREEMENT\n1. Services. The Supplier hosts the Customer data.\n2. Fees. The Customer pays monthly.';
const V2 = 'HOSTING AGREEMENT\n1. Services. The Supplier hosts and backs up the Customer data.\n2. Fees. The Customer pays monthly.';

describe('approval page (HTTP)', function () {
  this.timeout(120000);
  let owner: TestUser;
  let ann: TestUser;
  let mia: TestUser;
  let miaSecret: string;

  before(async () => {
    owner = await signUp();
    [ann, mia] = await Promise.all([addMember(owner, 'member'), addMember(owner, 'member')]);
    miaSecret = (await enableMfa(mia)).secret;
    const policy = await api('POST', '/settings/approval-policies', {
      token: owner.token,
      body: {
        name: 'Large hosting deals',
        conditions: { value_over: 1000, terms_differ_from_standard: { governing_law: 'New York' } },
        approvers: { kind: 'members', user_ids: [ann.user.id, mia.user.id] },
      },
    });
    expect(policy.status, policy.text).to.equal(201);
  });

  /** A contract at version 2 (so the page has a redline) under approval; each approver's mailed link. */
  async function underApproval() {
    const title = `Hosting MSA ${randomUUID().slice(0, 8)}`;
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title, type: 'service_agreement', counterparty: 'Northwind <b>Ltd</b>', value: 50_000, content: V1 },
    });
    expect(c.status, c.text).to.equal(201);
    const edit = await api('PUT', `/contracts/${c.body.id}`, { token: owner.token, body: { content: V2 } });
    expect(edit.status, edit.text).to.equal(200);
    const terms = await api('PUT', `/contracts/${c.body.id}/terms`, {
      token: owner.token,
      body: { terms: { governing_law: { value: 'the laws of Texas', normalized: 'Texas' } } },
    });
    expect(terms.status, terms.text).to.equal(200);
    const started = await api<{ approval: Approval }>('POST', `/contracts/${c.body.id}/approvals`, { token: owner.token });
    expect(started.status, started.text).to.equal(201);
    const subject = `approval requested for ${title}`;
    const [annMail, miaMail] = await Promise.all([waitForSubject(ann.email, subject), waitForSubject(mia.email, subject)]);
    return {
      contractId: c.body.id,
      title,
      approval: started.body.approval,
      ann: approvalLinkPath(annMail),
      mia: approvalLinkPath(miaMail),
      annMail,
    };
  }

  const read = async (id: string) => (await api<Approval>('GET', `/approvals/${id}`, { token: owner.token })).body;
  const decisions = async (id: string) => (await read(id)).groups.flatMap((g) => g.decisions);

  it('mails each approver a personal link; opening it (GET, HEAD, a prefetch, any query) decides nothing', async () => {
    const r = await underApproval();
    expect(r.ann).to.match(new RegExp(`^/approvals/${r.approval.id}/${ann.user.id}\\.`));
    expect(r.mia).to.not.equal(r.ann);
    expect(r.annMail.text).to.contain('do not forward this message');
    const b = pageBrowser();
    const page = await b.get(r.ann);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.contain("default-src 'none'").and.contain("form-action 'self'");
    expect(page.headers.get('cache-control')).to.equal('no-store');
    expect(page.headers.get('set-cookie'))
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Strict/i)
      .and.match(/Path=\/approvals/i);
    expect(page.text).not.to.match(/<script/i);
    expect(page.text).to.contain(`<h1>${r.title}</h1>`);
    expect(page.text).to.contain('Northwind &lt;b&gt;Ltd&lt;/b&gt;');
    expect(page.text).to.contain('50,000 USD');
    expect(page.text).to.contain(r.approval.version_sha256);
    // The key term beside the standard, and the redline against version 1.
    expect(page.text).to.match(
      /<th scope="row">governing law<\/th>\s*<td class="value">the laws of Texas<\/td>\s*<td>New York <span class="differs">\(differs\)<\/span><\/td>/,
    );
    expect(page.text).to.contain('Changes since version 1, the previous one');
    expect(page.text).to.contain('<ins>and backs up </ins>');
    expect(page.text).to.match(/<button type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(page.text).not.to.contain('id="code"');

    expect((await b.get(r.ann, {}, 'HEAD')).status).to.equal(200);
    expect((await b.get(r.ann, { 'sec-purpose': 'prefetch' })).status).to.equal(200);
    expect((await b.get(`${r.ann}?decision=approve&csrf=${csrfOf(page.text)}`)).status).to.equal(200);
    expect((await pageBrowser().get(r.mia)).status).to.equal(200);
    const after = await read(r.approval.id);
    expect(after.status).to.equal('pending');
    expect(await decisions(r.approval.id)).to.deep.equal([]);
  });

  it('refuses a post without the CSRF token, or with one of another link or browser', async () => {
    const r = await underApproval();
    const b = pageBrowser();
    const csrf = csrfOf((await b.get(r.ann)).text);
    const missing = await b.post(r.ann, { decision: 'approve' });
    expect(missing.status).to.equal(403);
    expect(missing.text).to.contain('did not come from this page');
    // A browser without the cookie (a cross-site form post) sends the right token in vain.
    expect((await b.post(r.ann, { csrf, decision: 'approve' }, false)).status).to.equal(403);
    const other = pageBrowser();
    const miaCsrf = csrfOf((await other.get(r.mia)).text);
    expect((await b.post(r.ann, { csrf: miaCsrf, decision: 'approve' })).status).to.equal(403);
    expect(await decisions(r.approval.id)).to.deep.equal([]);

    // The real form: a rejection needs a comment; an approval is the use case's, as Ann.
    const bare = await b.post(r.ann, { csrf, decision: 'reject' });
    expect(bare.status).to.equal(400);
    expect(bare.text).to.contain('Say briefly why you reject');
    const ok = await b.post(r.ann, { csrf, decision: 'approve', comment: 'Within budget' });
    expect(ok.status, ok.text).to.equal(303);
    expect(ok.headers.get('location')).to.equal(r.ann);
    expect((await decisions(r.approval.id)).map((d) => [d.user_id, d.decision, d.comment])).to.deep.equal([
      [ann.user.id, 'approved', 'Within budget'],
    ]);
    const shown = await b.get(r.ann);
    expect(shown.text).to.contain('You approved');
    expect(shown.text).not.to.contain('<form');
    // Twice is the use case's refusal, as a page.
    const twice = await b.post(r.ann, { csrf, decision: 'approve' });
    expect(twice.status).to.equal(409);
    expect(twice.headers.get('x-error-code')).to.equal('approval_already_decided');
  });

  it('takes a current TOTP code from an approver who has MFA on before the decision counts', async () => {
    const r = await underApproval();
    const b = pageBrowser();
    const page = await b.get(r.mia);
    expect(page.text).to.match(/<label for="code">Code from your authenticator app<\/label>/);
    const csrf = csrfOf(page.text);
    const none = await b.post(r.mia, { csrf, decision: 'approve' });
    expect(none.status).to.equal(400);
    expect(none.text).to.contain('Enter the current code from your authenticator app');
    const wrong = await b.post(r.mia, { csrf, decision: 'approve', code: '000000' });
    expect(wrong.status).to.equal(400);
    expect(wrong.text).to.contain('That code is not right');
    expect(await decisions(r.approval.id)).to.deep.equal([]);
    const ok = await b.post(r.mia, { csrf, decision: 'approve', code: await nextTotp(miaSecret) });
    expect(ok.status, ok.text).to.equal(303);
    expect((await decisions(r.approval.id)).map((d) => [d.user_id, d.decision])).to.deep.equal([[mia.user.id, 'approved']]);
  });

  it('refuses a decision from an approver without MFA when the organization requires it', async () => {
    const r = await underApproval();
    const b = pageBrowser();
    const csrf = csrfOf((await b.get(r.ann)).text);
    const setting = (on: boolean) => api('PUT', '/settings/organization', { token: owner.token, body: { mfa_required: on } });
    expect((await setting(true)).status).to.equal(200);
    try {
      const page = await b.get(r.ann);
      expect(page.text).to.contain('Your organization requires MFA').and.not.contain('<form');
      const posted = await b.post(r.ann, { csrf, decision: 'approve' });
      expect(posted.status).to.equal(403);
      expect(await decisions(r.approval.id)).to.deep.equal([]);
    } finally {
      expect((await setting(false)).status).to.equal(200);
    }
  });

  it("refuses another approver's or another request's token, and a token with its approver swapped", async () => {
    const [one, two] = [await underApproval(), await underApproval()];
    const token = one.ann.split('/')[3]!;
    const b = pageBrowser();
    await b.get(two.ann); // the browser's cookie
    // Ann's token of request one on request two: not known there.
    const foreign = `/approvals/${two.approval.id}/${token}`;
    expect((await b.get(foreign)).status).to.equal(404);
    const posted = await b.post(foreign, {
      csrf: approvalFormToken(testEnv().config, cookieId(b.cookie), two.approval.id, token),
      decision: 'approve',
    });
    expect(posted.status).to.equal(404);
    // Mia's user id in Ann's token: the MAC no longer holds.
    const swapped = `/approvals/${one.approval.id}/${token.replace(ann.user.id, mia.user.id)}`;
    expect((await b.get(swapped)).status).to.equal(404);
    expect((await b.get(`/approvals/${one.approval.id}/${'x'.repeat(40)}.y`)).status).to.equal(404);
    expect(await decisions(one.approval.id)).to.deep.equal([]);
    expect(await decisions(two.approval.id)).to.deep.equal([]);
  });

  it('refuses an expired link, and one of a member whose password was reset since', async () => {
    const r = await underApproval();
    const user = (await User.findById(ann.user.id))!;
    const subject = {
      approvalId: r.approval.id,
      userId: ann.user.id,
      versionSha256: r.approval.version_sha256,
      sessionEpoch: user.session_epoch,
    };
    const config = testEnv().config;
    const old = approvalLinkToken(config, subject, new Date(Date.now() - (config.APPROVAL_LINK_DAYS * 86400 + 60) * 1000));
    const b = pageBrowser();
    await b.get(r.ann); // the browser's cookie
    const expired = `/approvals/${r.approval.id}/${old}`;
    const page = await b.get(expired);
    expect(page.status).to.equal(410);
    expect(page.text).to.contain('This link has expired');
    const posted = await b.post(expired, { csrf: approvalFormToken(config, cookieId(b.cookie), r.approval.id, old), decision: 'approve' });
    expect(posted.status).to.equal(410);
    const otherEpoch = approvalLinkToken(config, { ...subject, sessionEpoch: user.session_epoch + 1 });
    expect((await b.get(`/approvals/${r.approval.id}/${otherEpoch}`)).status).to.equal(404);
    expect(await decisions(r.approval.id)).to.deep.equal([]);
  });

  it('stops a link when its request is superseded by a new version', async () => {
    const r = await underApproval();
    const b = pageBrowser();
    const csrf = csrfOf((await b.get(r.ann)).text);
    const edit = await api('PUT', `/contracts/${r.contractId}`, { token: owner.token, body: { content: `${V2}\n3. Term. Two years.` } });
    expect(edit.status).to.equal(200);
    const page = await b.get(r.ann);
    expect(page.status).to.equal(410);
    expect(page.text).to.contain('This request was superseded');
    expect(page.text).not.to.contain('<form');
    const posted = await b.post(r.ann, { csrf, decision: 'approve' });
    expect(posted.status).to.equal(409);
    expect(posted.headers.get('x-error-code')).to.equal('approval_superseded');
    expect((await read(r.approval.id)).status).to.equal('superseded');
    expect(await decisions(r.approval.id)).to.deep.equal([]);
  });
});

/** The browser id in a `csrf_id=<id>` cookie. */
const cookieId = (cookie: string) => cookie.slice(cookie.indexOf('=') + 1);
