import { expect } from 'chai';
import { api } from '../../support/http';
import { signUp } from '../../support/auth';

/** The catalog itself is checked without engines (test/unit/platform/error-codes.test.ts); here a refusal over HTTP. */
describe('error codes', () => {
  it('answers a domain code where a use case refuses', async () => {
    const owner = await signUp();
    const res = await api('POST', '/webhooks/deliveries/0123456789abcdef01234567/retry', { token: owner.token });
    expect(res.status).to.equal(404);
    expect(res.headers.get('x-error-code')).to.equal('not_found');
    const refused = await api('POST', '/webhooks/subscribe', {
      token: owner.token,
      body: { url: 'ftp://example.com/hook', events: ['contract.created'], secret: 'a-long-enough-secret' },
    });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.headers.get('x-error-code')).to.equal('webhook_url_refused');
  });
});
