/**
 * An organization mails nobody else until an owner's address is verified through the mailed
 * link (issue 29: a throwaway registration could send the service's mail to anyone).
 */
import { expect } from 'chai';
import { api } from '../../support/http';
import { withSecondApi } from '../../support/env';
import { addMember, fromIp, signUp, uniqueIp, VERIFICATION_SUBJECT, type LoginBody } from '../../support/auth';
import { linkToken, mailbox, uniqueAddress, waitForMail, waitForSubject } from '../../support/mailbox';

const verify = (token: string, base?: string) => api('POST', '/auth/email/verify', { base, body: { token }, headers: fromIp(uniqueIp()) });

describe('email verification', function () {
  this.timeout(60000);

  it('keeps an unverified organization from mailing anyone: invitations and signing requests answer 403 email_not_verified', async () => {
    const owner = await signUp({ verified: false });
    const invitee = uniqueAddress('invitee');
    const invite = await api('POST', '/team/invite', { token: owner.token, body: { email: invitee, role: 'member' } });
    expect(invite.status).to.equal(403);
    expect(invite.headers.get('x-error-code')).to.equal('email_not_verified');
    expect(invite.body.detail).to.match(/must verify their email address before it mails anyone else/);

    const contract = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'NDA', type: 'nda', counterparty: 'Initech', content: 'NDA text' },
    });
    const signer = uniqueAddress('signer');
    const sig = await api('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contract.body.id, signers: [{ name: 'Sig Ner', email: signer }] },
    });
    expect(sig.status).to.equal(403);
    expect(sig.headers.get('x-error-code')).to.equal('email_not_verified');
    expect((await api<{ total: number }>('GET', '/signatures', { token: owner.token })).body.total).to.equal(0);

    // The owner's own link arrived meanwhile; nothing went to the others.
    const link = linkToken(await waitForSubject(owner.email, VERIFICATION_SUBJECT), 'verify-email');
    expect(await mailbox(invitee)).to.have.length(0);
    expect(await mailbox(signer)).to.have.length(0);

    expect((await verify(link)).status).to.equal(204);
    expect((await api('POST', '/team/invite', { token: owner.token, body: { email: invitee, role: 'member' } })).status).to.equal(201);
    const sent = await api('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contract.body.id, signers: [{ name: 'Sig Ner', email: signer }] },
    });
    expect(sent.status, sent.text).to.equal(201);
    await waitForMail(signer);
  });

  it('takes a link once and before it expires; a resend replaces it; 400 email_verification_invalid otherwise', async () => {
    const owner = await signUp({ verified: false });
    const first = linkToken(await waitForSubject(owner.email, VERIFICATION_SUBJECT), 'verify-email');
    const wrong = await verify('not-a-token');
    expect(wrong.status).to.equal(400);
    expect(wrong.headers.get('x-error-code')).to.equal('email_verification_invalid');

    const resent = await api('POST', '/auth/email/verify/resend', { token: owner.token });
    expect(resent.status).to.equal(202);
    expect(resent.text).to.not.match(/token/i);
    const both = await waitForMail(owner.email, 2);
    const second = both.map((m) => linkToken(m, 'verify-email')).find((t) => t !== first)!;
    expect((await verify(first)).status, 'the replaced link').to.equal(400);
    expect((await verify(second)).status).to.equal(204);
    expect((await verify(second)).status, 'a used link').to.equal(400);
    const again = await api('POST', '/auth/email/verify/resend', { token: owner.token });
    expect(again.status).to.equal(409);
    expect(again.headers.get('x-error-code')).to.equal('email_already_verified');

    // A link past EMAIL_VERIFICATION_TTL_SECONDS.
    await withSecondApi({ EMAIL_VERIFICATION_TTL_SECONDS: 1 }, async (base) => {
      const email = uniqueAddress('late');
      const reg = await api<LoginBody>('POST', '/auth/register', {
        base,
        body: { email, password: 'long-enough-1', full_name: 'Late' },
        headers: fromIp(uniqueIp()),
      });
      expect(reg.status).to.equal(201);
      const late = linkToken(await waitForSubject(email, VERIFICATION_SUBJECT), 'verify-email');
      await new Promise((r) => setTimeout(r, 1500));
      expect((await verify(late, base)).status).to.equal(400);
    });
  });

  it('limits resends to 3 per 5 minutes per user, and lets an invited member in verified', async () => {
    const owner = await signUp({ verified: false });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await api('POST', '/auth/email/verify/resend', { token: owner.token })).status);
    expect(codes).to.deep.equal([202, 202, 202, 429]);

    // An invited member's address came with the invitation's token: their organization's rule is the owner's.
    const verified = await signUp();
    const member = await addMember(verified, 'admin');
    const resend = await api('POST', '/auth/email/verify/resend', { token: member.token });
    expect(resend.status).to.equal(409);
    expect(await mailbox(member.email).then((box) => box.filter((m) => m.subject === VERIFICATION_SUBJECT))).to.have.length(0);
  });
});
