/**
 * Mail that leaves the service, read where it arrives: the local GreenMail (scripts/stack.sh)
 * for the flows, and an SMTP server of the test's own that refuses one address with 550.
 */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Types } from 'mongoose';
import { SMTPServer } from 'smtp-server';
import { api } from '../../support/http';
import { fromIp, signUp, uniqueIp, addMember, type LoginBody, type TestUser } from '../../support/auth';
import { linkToken, mailbox, uniqueAddress, waitForMail, waitForSubject, type ReceivedMail } from '../../support/mailbox';
import { startOutageStack, type OutageStack } from '../../support/outage';
import { startApiProcess, waitFor } from '../../support/processes';
import { testEnvironment } from '../../support/env';
import { OutgoingMail } from '../../../models/outgoing-mail';
import { Signature } from '../../../models/signature';

interface MailItem {
  id: string;
  kind: string;
  to: string;
  subject: string;
  status: string;
  attempts: number;
  last_error: string | null;
  queued_at: string;
  sent_at: string | null;
}
interface MailList {
  messages: MailItem[];
  total: number;
}

const listMail = (token: string, query = '', base?: string) => api<MailList>('GET', `/settings/mail${query}`, { token, base });

/** Waits until the organization's list shows a message to `to` in `status` (of `kind`, when given), and returns it. */
async function waitForListed(
  token: string,
  to: string,
  status: string,
  base?: string,
  timeoutMs = 60000,
  kind?: string,
): Promise<MailItem> {
  let found: MailItem | undefined;
  await waitFor(
    async () => {
      found = (await listMail(token, '?page_size=100', base)).body.messages.find(
        (m) => m.to === to && m.status === status && (!kind || m.kind === kind),
      );
      return !!found;
    },
    timeoutMs,
    `a ${status} message to ${to}`,
  );
  return found!;
}

/** Whether the stored record still holds the token: in clear anywhere, or its sealed content at all. */
async function recordHolds(id: string, secret: string): Promise<boolean> {
  const raw = await OutgoingMail.collection.findOne({ _id: new Types.ObjectId(id) });
  expect(raw).to.not.equal(null);
  return JSON.stringify(raw).includes(secret) || raw!.content_sealed !== null;
}

describe('mail', function () {
  this.timeout(120000);
  let owner: TestUser;
  before(async () => {
    owner = await signUp({ organizationName: 'Acme <b>&</b> Partners' });
  });

  it('invitation: one message whose link registers the invitee into the organization; escaped HTML; no token left once sent', async () => {
    const to = uniqueAddress('invitee');
    const invite = await api<{ invite_token: string; expires_at: string }>('POST', '/team/invite', {
      token: owner.token,
      body: { email: to, role: 'member' },
    });
    expect(invite.status, invite.text).to.equal(201);
    const [mail, ...more] = await waitForMail(to);
    expect(more).to.have.length(0);
    // The organization's name and the inviter's are free text: the body names them, never the subject.
    expect(mail!.subject).to.equal('Invitation to join a team');
    expect(mail!.text).to.contain('join Acme <b>&</b> Partners as member');
    expect(mail!.html).to.contain('Acme &lt;b&gt;&amp;&lt;/b&gt; Partners').and.not.contain('Acme <b>');
    expect(mail!.text).to.contain(`${invite.body.expires_at.slice(0, 16).replace('T', ' ')} UTC`);
    const token = linkToken(mail!, 'invite');
    expect(token).to.equal(invite.body.invite_token);
    expect(mail!.html).to.contain(`/invite/${token}"`);

    const joined = await api<LoginBody>('POST', '/auth/register', {
      body: { email: to, password: 'invitee-password-1', full_name: 'Ivy Invitee', invite_token: token },
      headers: fromIp(uniqueIp()),
    });
    expect(joined.status, joined.text).to.equal(201);
    expect(joined.body.user).to.include({ organization_id: owner.organizationId, role: 'member' });

    const listed = await waitForListed(owner.token, to, 'sent');
    expect(listed).to.include({ kind: 'team_invite', attempts: 1, last_error: null });
    expect(listed.sent_at).to.be.a('string');
    const list = await listMail(owner.token);
    expect(list.text).not.to.contain(token);
    expect(await recordHolds(listed.id, token)).to.equal(false);
  });

  it('password reset: one message whose token resets the password; the token is in no answer and, once sent, not in the record', async () => {
    const user = await signUp();
    const res = await api('POST', '/auth/password/reset-request', { body: { email: user.email }, headers: fromIp(uniqueIp()) });
    expect(res.status).to.equal(202);
    const mail = await waitForSubject(user.email, 'Reset your password');
    expect((await mailbox(user.email)).filter((m) => m.subject === mail.subject)).to.have.length(1);
    expect(mail.html).to.contain('/reset-password/');
    const token = linkToken(mail, 'reset-password');
    expect(res.text).not.to.contain(token);
    const reset = await api('POST', '/auth/password/reset', { body: { token, password: 'after-reset-password-1' } });
    expect(reset.status, reset.text).to.equal(204);
    const login = await api<LoginBody>('POST', '/auth/login', {
      body: { email: user.email, password: 'after-reset-password-1' },
      headers: fromIp(uniqueIp()),
    });
    expect(login.status).to.equal(200);
    const session = login.body.access_token;

    const listed = await waitForListed(session, user.email, 'sent', undefined, 60000, 'password_reset');
    expect(await recordHolds(listed.id, token)).to.equal(false);
    expect((await listMail(session)).text).not.to.contain(token);
  });

  describe('signature requests', () => {
    const contract = async (title: string) => {
      const res = await api<{ id: string }>('POST', '/contracts', {
        token: owner.token,
        body: { title, type: 'nda', counterparty: 'Globex', content: 'MUTUAL NDA\n1. Confidentiality.' },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.id;
    };
    const signIn = (token: string) =>
      api('POST', `/signatures/sign/${token}`, { body: { signature_text: 'Signed' }, headers: fromIp(uniqueIp()) });

    it('ordered, two signers: only the first is mailed, the second when the first has signed; completion mails the requester and both', async () => {
      const [first, second] = [uniqueAddress('first'), uniqueAddress('second')];
      const title = `Supply <deal> ${randomUUID().slice(0, 6)}`;
      const res = await api<{ id: string }>('POST', '/signatures', {
        token: owner.token,
        body: {
          contract_id: await contract(title),
          ordered: true,
          message: 'Please sign <today>',
          signers: [
            { name: 'Fay First', email: first },
            { name: 'Sam Second', email: second },
          ],
        },
      });
      expect(res.status, res.text).to.equal(201);

      const [request] = await waitForMail(first);
      // Neither the title nor the message is in the subject: the service's own words only.
      expect(request!.subject).to.equal('A document awaits your signature');
      expect(request!.text).to.contain('Please sign <today>');
      expect(request!.html).to.contain('Please sign &lt;today&gt;').and.contain('Supply &lt;deal&gt;');
      // Its turn has not come: nothing queued for the second signer, nothing arrived.
      await waitForListed(owner.token, first, 'sent');
      expect((await listMail(owner.token, '?page_size=100')).body.messages.filter((m) => m.to === second)).to.have.length(0);
      expect(await mailbox(second)).to.have.length(0);

      expect((await signIn(linkToken(request!, 'sign'))).status).to.equal(200);
      const [secondRequest] = await waitForMail(second);
      expect(secondRequest!.text).to.contain('1 signer has signed before you');
      expect((await signIn(linkToken(secondRequest!, 'sign'))).status).to.equal(200);

      const completed = (m: ReceivedMail) => m.subject === 'Signed by everyone' && m.text.includes(title);
      const boxes = await Promise.all(
        [first, second, owner.email].map(async (address) => {
          let box: ReceivedMail[] = [];
          await waitFor(async () => (box = await mailbox(address)).some(completed), 60000, `the completion notice to ${address}`);
          return box;
        }),
      );
      const ownerMails = boxes[2]!;
      for (const box of boxes) {
        const done = box.filter(completed);
        expect(done, box.map((m) => m.subject).join(' | ')).to.have.length(1);
        const certificate = JSON.parse(done[0]!.attachments.find((a) => a.filename === 'certificate.json')!.content) as {
          algorithm: string;
          payload: string;
        };
        expect(certificate.algorithm).to.equal('Ed25519');
        expect(JSON.parse(certificate.payload)).to.include({ signature_id: res.body.id });
      }
      expect(ownerMails.filter(completed)[0]!.text).to.contain(`/signatures/${res.body.id}`);
      // Every signer's sealed link token is gone with the request's completion.
      const stored = await Signature.findById(res.body.id).lean();
      expect(stored!.signers.map((x) => x.token_sealed)).to.deep.equal([null, null]);
    });

    it('declined: the requester is told who declined and why', async () => {
      const signer = uniqueAddress('decliner');
      const title = `Lease ${randomUUID().slice(0, 6)}`;
      const res = await api('POST', '/signatures', {
        token: owner.token,
        body: { contract_id: await contract(title), signers: [{ name: 'Dee Cliner', email: signer }] },
      });
      expect(res.status, res.text).to.equal(201);
      const [request] = await waitForMail(signer);
      const declined = await api('POST', `/signatures/sign/${linkToken(request!, 'sign')}/decline`, {
        body: { reason: 'Clause 4 <is> wrong' },
        headers: fromIp(uniqueIp()),
      });
      expect(declined.status, declined.text).to.equal(200);
      let notice: ReceivedMail | undefined;
      await waitFor(
        async () =>
          !!(notice = (await mailbox(owner.email)).find(
            (m) => m.subject === 'A signer declined your signature request' && m.text.includes(title),
          )),
        30000,
        'the declined notice',
      );
      expect(notice!.text).to.contain('Clause 4 <is> wrong');
      expect(notice!.html).to.contain('Clause 4 &lt;is&gt; wrong');
    });
  });

  it("the list: owners and admins only, filtered by status, another organization's message is 404", async () => {
    const member = await addMember(owner, 'member');
    expect((await listMail(member.token)).status).to.equal(403);
    const other = await signUp();
    const mine = (await listMail(owner.token, '?status=sent')).body;
    expect(mine.total).to.be.greaterThan(0);
    expect(mine.messages.every((m) => m.status === 'sent')).to.equal(true);
    expect((await listMail(owner.token, '?status=bogus')).status).to.equal(400);
    const theirs = await api('POST', `/settings/mail/${mine.messages[0]!.id}/retry`, { token: other.token });
    expect(theirs.status).to.equal(404);
    const notFailed = await api('POST', `/settings/mail/${mine.messages[0]!.id}/retry`, { token: owner.token });
    expect(notFailed.status).to.equal(409);
  });

  it('keeps signing and reset tokens out of the request log', async function () {
    this.timeout(180000);
    const logFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'mail-log-')), 'api.log');
    const proc = await startApiProcess({ ...testEnvironment(), LOG_LEVEL: 'info' }, logFile);
    try {
      const base = `${proc.url}/api/v1`;
      const email = uniqueAddress('logged');
      const reg = await api<LoginBody>('POST', '/auth/register', {
        base,
        body: { email, password: 'logged-password-1', full_name: 'Lou Logged' },
        headers: fromIp(uniqueIp()),
      });
      expect(reg.status, reg.text).to.equal(201);
      const token = reg.body.access_token;
      const verification = linkToken(await waitForSubject(email, 'Verify your email address'), 'verify-email');
      expect((await api('POST', '/auth/email/verify', { base, body: { token: verification } })).status).to.equal(204);
      const created = await api<{ id: string }>('POST', '/contracts', {
        base,
        token,
        body: { title: 'Logged NDA', type: 'nda', counterparty: 'Initech', content: 'NDA text' },
      });
      const sig = await api<{ signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
        base,
        token,
        body: { contract_id: created.body.id, signers: [{ name: 'Val Viewer', email: uniqueAddress('viewer') }] },
      });
      expect(sig.status, sig.text).to.equal(201);
      const signing = sig.body.signers[0]!.signing_url.split('/').pop()!;
      expect((await api('GET', `/signatures/sign/${signing}`, { base })).status).to.equal(200);
      // A page opened from the link names it in the Referer of its next request.
      const referred = await api('GET', '/openapi.json', { base, headers: { referer: `${proc.url}/sign/${signing}?token=${signing}` } });
      expect(referred.status).to.equal(200);
      expect((await api('POST', '/auth/password/reset-request', { base, body: { email }, headers: fromIp(uniqueIp()) })).status).to.equal(
        202,
      );
      const reset = linkToken(await waitForSubject(email, 'Reset your password'), 'reset-password');
      expect((await api('POST', '/auth/password/reset', { base, body: { token: reset, password: 'logged-password-2' } })).status).to.equal(
        204,
      );
      await new Promise((r) => setTimeout(r, 500)); // the log is written asynchronously
      const log = readFileSync(logFile, 'utf8');
      expect(log).to.contain('/signatures/sign/[redacted]');
      expect(log).not.to.contain(signing);
      expect(log).not.to.contain(reset);
      expect(log).not.to.contain(verification);
      expect(log).to.contain(`"referer":"${proc.url}/sign/[redacted]?token=[redacted]"`);
    } finally {
      await proc.stop();
    }
  });

  describe('an address the SMTP server refuses with 550', function () {
    this.timeout(180000);
    let stack: OutageStack;
    let refusing = true;
    const received: string[] = [];
    const refused = uniqueAddress('refused');
    let server: SMTPServer;
    before(async () => {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onRcptTo(address, _session, callback) {
          if (refusing && address.address === refused)
            return callback(
              Object.assign(new Error('5.1.1 <' + refused + '>: Recipient address rejected: User unknown'), { responseCode: 550 }),
            );
          callback();
        },
        onData(stream, session, callback) {
          stream
            .on('data', () => {})
            .on('end', () => {
              received.push(...session.envelope.rcptTo.map((r) => r.address));
              callback();
            });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const smtp = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
      stack = await startOutageStack(`mail-550-${randomBytes(3).toString('hex')}`, { sharedTemporal: true, env: { SMTP_URL: smtp } });
    });
    after(async () => {
      await stack?.stop();
      await new Promise<void>((resolve) => server?.close(() => resolve()));
    });

    it('leaves that message failed with the reason at once, sends the others, reports it in the activity feed, and a retry sends it', async () => {
      const { base, token } = stack;
      const accepted = [uniqueAddress('ok-a'), uniqueAddress('ok-b')];
      for (const email of [accepted[0]!, refused, accepted[1]!]) {
        const res = await api('POST', '/team/invite', { base, token, body: { email, role: 'viewer' } });
        expect(res.status, res.text).to.equal(201); // the API answers as before
      }
      // The stack's worker process is still bundling its workflows at first.
      const failed = await waitForListed(token, refused, 'failed', base, 150000);
      expect(failed.attempts).to.equal(1); // a 5xx is not retried
      expect(failed.last_error).to.match(/^550 .*User unknown/);
      for (const email of accepted) await waitForListed(token, email, 'sent', base);
      // Besides the owner's own verification message, sent at registration.
      expect(received.filter((address) => address !== stack.email).sort()).to.deep.equal([...accepted].sort());

      const feed = await api<{ activities: Array<{ type: string; resource_id: string; summary: string }> }>(
        'GET',
        '/analytics/activity?type=mail.failed',
        { base, token },
      );
      expect(feed.body.activities.map((a) => a.resource_id)).to.deep.equal([failed.id]);
      expect(feed.body.activities[0]!.summary).to.contain(refused).and.contain('550');

      refusing = false;
      const retry = await api<MailItem>('POST', `/settings/mail/${failed.id}/retry`, { base, token });
      expect(retry.status, retry.text).to.equal(202);
      expect(retry.body.status).to.equal('queued');
      const sent = await waitForListed(token, refused, 'sent', base);
      expect(sent.attempts).to.equal(2);
      expect(received.filter((r) => r === refused)).to.have.length(1);
    });
  });
});
