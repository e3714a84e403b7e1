/** How much mail an organization may send to others, and what its subjects may say (issue 29). */
import { expect } from 'chai';
import { api } from '../../support/http';
import { withSecondApi } from '../../support/env';
import { signUp, type TestUser } from '../../support/auth';
import { uniqueAddress, waitForMail } from '../../support/mailbox';

async function contract(owner: TestUser, title: string, base?: string): Promise<string> {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: owner.token,
    base,
    body: { title, type: 'nda', counterparty: 'Initech', content: 'NDA text' },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

const request = (owner: TestUser, contractId: string, emails: string[], base?: string, message?: string) =>
  api('POST', '/signatures', {
    token: owner.token,
    base,
    body: { contract_id: contractId, signers: emails.map((email, i) => ({ name: `Signer ${i}`, email })), message },
  });

describe('mail to others', function () {
  this.timeout(60000);

  it('holds an organization to MAIL_RECIPIENTS_PER_ORG_PER_DAY addresses: 429 mail_quota_exceeded with Retry-After, nothing sent', async () => {
    const owner = await signUp();
    await withSecondApi({ MAIL_RECIPIENTS_PER_ORG_PER_DAY: 3 }, async (base) => {
      const id = await contract(owner, 'Quota NDA', base);
      expect((await request(owner, id, [uniqueAddress('q1'), uniqueAddress('q2')], base)).status).to.equal(201);
      expect(
        (await api('POST', '/team/invite', { token: owner.token, base, body: { email: uniqueAddress('q3'), role: 'viewer' } })).status,
      ).to.equal(201);
      const late = uniqueAddress('q4');
      const over = await request(owner, id, [late], base);
      expect(over.status).to.equal(429);
      expect(over.headers.get('x-error-code')).to.equal('mail_quota_exceeded');
      expect(Number(over.headers.get('retry-after'))).to.be.within(1, 24 * 3600);
      expect(over.body.detail).to.match(/at most 3 addresses in 24 hours/);
      const invite = await api('POST', '/team/invite', { token: owner.token, base, body: { email: late, role: 'viewer' } });
      expect(invite.status).to.equal(429);
      expect(invite.headers.get('x-error-code')).to.equal('mail_quota_exceeded');
      // Another organization has a quota of its own.
      const other = await signUp();
      expect(
        (
          await request(
            other,
            await contract(other, 'Other NDA', base),
            [uniqueAddress('o1'), uniqueAddress('o2'), uniqueAddress('o3')],
            base,
          )
        ).status,
      ).to.equal(201);
    });
  });

  it('keeps titles, names and messages out of subjects: the body carries them', async () => {
    const owner = await signUp({ organizationName: 'Your bank: account locked' });
    const title = 'URGENT: confirm your password at evil.example';
    const signer = uniqueAddress('subject');
    const res = await request(owner, await contract(owner, title), [signer], undefined, 'Log in at http://evil.example now');
    expect(res.status, res.text).to.equal(201);
    const [mail] = await waitForMail(signer);
    expect(mail!.subject).to.equal('A document awaits your signature');
    expect(mail!.text).to.contain(title).and.contain('Log in at http://evil.example now');

    const invitee = uniqueAddress('invited');
    expect((await api('POST', '/team/invite', { token: owner.token, body: { email: invitee, role: 'viewer' } })).status).to.equal(201);
    const [invitation] = await waitForMail(invitee);
    expect(invitation!.subject).to.equal('Invitation to join a team');
    expect(invitation!.text).to.contain('Your bank: account locked');
  });
});
