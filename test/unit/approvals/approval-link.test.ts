import { expect } from 'chai';
import { approvalLinkToken, approverOfToken, checkApprovalLink } from '../../../services/approvals/approval-link';
import { redactUrl } from '../../../platform/logger';

const config = { ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), APPROVAL_LINK_DAYS: 7 };
const subject = { approvalId: 'a'.repeat(24), userId: 'b'.repeat(24), versionSha256: 'c'.repeat(64), sessionEpoch: 0 };
const DAY = 86_400_000;

describe('approval link tokens', () => {
  const from = new Date('2026-01-01T00:00:00Z');
  const token = approvalLinkToken(config, subject, from);

  it('names its approver and holds for APPROVAL_LINK_DAYS, then is expired', () => {
    expect(approverOfToken(token)).to.equal(subject.userId);
    expect(checkApprovalLink(config, subject, token, new Date(from.getTime() + 7 * DAY - 1000))).to.equal('valid');
    expect(checkApprovalLink(config, subject, token, new Date(from.getTime() + 7 * DAY))).to.equal('expired');
  });

  it('holds for nothing else: another request, approver, version, session epoch, key or deadline', () => {
    const at = new Date(from.getTime() + DAY);
    for (const other of [
      { ...subject, approvalId: 'd'.repeat(24) },
      { ...subject, userId: 'e'.repeat(24) },
      { ...subject, versionSha256: 'f'.repeat(64) },
      { ...subject, sessionEpoch: 1 },
    ])
      expect(checkApprovalLink(config, other, token, at)).to.equal('invalid');
    expect(checkApprovalLink({ ENCRYPTION_KEY: Buffer.alloc(32, 8).toString('base64') }, subject, token, at)).to.equal('invalid');
    const [user, , mac] = token.split('.');
    expect(checkApprovalLink(config, subject, `${user}.zzzzzz.${mac}`, at)).to.equal('invalid');
    expect(approverOfToken('not-a-token')).to.equal(null);
  });

  it("is redacted from logged URLs, and the JSON API's verbs are not", () => {
    expect(redactUrl(`/approvals/${subject.approvalId}/${token}`)).to.equal(`/approvals/${subject.approvalId}/[redacted]`);
    expect(redactUrl(`/api/v1/approvals/${subject.approvalId}/approve`)).to.equal(`/api/v1/approvals/${subject.approvalId}/approve`);
  });
});
