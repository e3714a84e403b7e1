import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { api } from '../../support/http';
import { withSecondApi } from '../../support/env';
import { fromIp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { totpNow } from '../../../platform/security/totp';

const login = (path: string, email: string, password: string, ip: string, base?: string) =>
  api('POST', path, { base, body: { email, password }, headers: fromIp(ip) });

describe('login limits', () => {
  it('apply the login, register and reset limits to every spelling Express routes to them', async () => {
    const owner = await signUp();
    const ip = uniqueIp();
    const spellings = ['/auth/login/', '/Auth/Login', '/AUTH/LOGIN/', '/auth/Login', '/Auth/login/', '/auth/LOGIN'];
    const codes = [];
    for (const path of spellings) codes.push((await login(path, owner.email, 'not-the-password', ip)).status);
    expect(codes).to.deep.equal([401, 401, 401, 401, 401, 429]);

    const other = uniqueIp();
    const register = [];
    for (const path of ['/Auth/Register', '/auth/register/', '/AUTH/REGISTER', '/auth/Register/']) {
      const res = await api('POST', path, {
        body: { email: `s-${randomBytes(4).toString('hex')}@example.test`, password: 'long-enough-1', full_name: 'S' },
        headers: fromIp(other),
      });
      register.push(res.status);
    }
    expect(register).to.deep.equal([201, 201, 201, 429]);
    const reset = [];
    for (const path of [
      '/auth/password/reset-request/',
      '/Auth/Password/Reset-Request',
      '/AUTH/PASSWORD/RESET-REQUEST',
      '/auth/password/Reset-request/',
    ]) {
      reset.push((await api('POST', path, { body: { email: owner.email }, headers: fromIp(other) })).status);
    }
    expect(reset).to.deep.equal([202, 202, 202, 429]);
  });

  it('count failures per account from any address, and one address cannot lock the owner out', async () => {
    const victim = await signUp();
    // The owner signs in from home once: that address stays usable while the account is under attack.
    const home = uniqueIp();
    expect((await login('/auth/login', victim.email, victim.password, home)).status).to.equal(200);

    // One address: five wrong passwords (its whole login allowance), and a sixth refused by the per-address limit.
    const attacker = uniqueIp();
    const first = [];
    for (let i = 0; i < 6; i++) first.push((await login('/auth/login', victim.email, `guess-${i}`, attacker)).status);
    expect(first).to.deep.equal([401, 401, 401, 401, 401, 429]);
    // That is not enough to lock the owner out, even from an address never seen before.
    expect((await login('/auth/login', victim.email, victim.password, uniqueIp())).status).to.equal(200);

    // Many addresses: the account takes 10 failures in all. The refused sixth above did not count,
    // so five more fail with 401 and the next is refused, whatever the spelling.
    const spread = [];
    for (let i = 0; i < 6; i++)
      spread.push((await login(i % 2 ? '/Auth/Login/' : '/auth/login', victim.email, `spread-${i}`, uniqueIp())).status);
    expect(spread).to.deep.equal([401, 401, 401, 401, 401, 429]);
    const locked = await login('/auth/login', victim.email, victim.password, uniqueIp());
    expect(locked.status).to.equal(429);
    expect(locked.body.detail).to.match(/failed logins/);
    expect(Number(locked.headers.get('retry-after'))).to.be.within(1, 15 * 60);
    // The owner's own address is not refused, and other accounts are untouched.
    expect((await login('/auth/login', victim.email, victim.password, home)).status).to.equal(200);
    const bystander = await signUp();
    expect((await login('/auth/login', bystander.email, bystander.password, uniqueIp())).status).to.equal(200);
  });

  it('refuse an address its sixth failure for one account, without counting the refusals', async () => {
    const victim = await signUp();
    // An instance with a loose per-address request limit, so that the failure limits answer first.
    await withSecondApi({ RATE_LIMIT_LOGIN_PER_MINUTE: 100 }, async (base) => {
      const attacker = uniqueIp();
      const codes = [];
      for (let i = 0; i < 8; i++) codes.push((await login('/auth/login', victim.email, `guess-${i}`, attacker, base)).status);
      expect(codes).to.deep.equal([401, 401, 401, 401, 401, 429, 429, 429]);
      // The same address may still try other accounts.
      expect((await login('/auth/login', `nobody-${uniqueIp()}@example.test`, 'guess', attacker, base)).status).to.equal(401);
      // The three refusals cost the account nothing: five more failures from elsewhere are allowed, then the lock.
      const spread = [];
      for (let i = 0; i < 6; i++) spread.push((await login('/auth/login', victim.email, `spread-${i}`, uniqueIp(), base)).status);
      expect(spread).to.deep.equal([401, 401, 401, 401, 401, 429]);
    });
  });

  it('give an API key its own bucket only when the key exists', async () => {
    const owner = await signUp();
    const ip = uniqueIp();
    const codes = [];
    for (let i = 0; i < 61; i++) {
      const fake = `clk_${randomBytes(30).toString('hex').slice(0, 40)}`;
      codes.push((await api('GET', '/team/members', { token: fake, headers: fromIp(ip) })).status);
    }
    expect(codes.slice(0, 60).every((c) => c === 401)).to.equal(true);
    expect(codes[60]).to.equal(429);
    // A real key from that spent address is counted on its own.
    const created = await api<{ key: string }>('POST', '/settings/api-keys', { token: owner.token, body: { name: 'CI' } });
    const real = await api('GET', '/team/members', { token: created.body.key, headers: fromIp(ip) });
    expect(real.status).to.equal(200);
    expect(real.headers.get('x-ratelimit-remaining')).to.equal('59');
  });

  it('count wrong MFA codes per account, whatever the address and the mfa_token', async () => {
    const owner: TestUser = await signUp();
    const setup = await api<{ secret: string }>('POST', '/auth/mfa/setup', { token: owner.token });
    expect(
      (await api('POST', '/auth/mfa/enable', { token: owner.token, body: { code: await totpNow(setup.body.secret) } })).status,
    ).to.equal(200);
    const challenge = async () => {
      const res = await api<{ mfa_token: string }>('POST', '/auth/login', {
        body: { email: owner.email, password: owner.password },
        headers: fromIp(uniqueIp()),
      });
      expect(res.status).to.equal(200);
      return res.body.mfa_token;
    };
    const wrong = [];
    for (let i = 0; i < 5; i++)
      wrong.push(
        (await api('POST', '/auth/mfa/verify', { body: { mfa_token: await challenge(), code: '000000' }, headers: fromIp(uniqueIp()) }))
          .status,
      );
    expect(wrong).to.deep.equal([401, 401, 401, 401, 401]);
    // The next code is refused unchecked, even the right one (of the next step, the current one was used at enable).
    const code = await totpNow(setup.body.secret, Math.floor(Date.now() / 1000) + 30);
    const refused = await api('POST', '/auth/mfa/verify', { body: { mfa_token: await challenge(), code }, headers: fromIp(uniqueIp()) });
    expect(refused.status).to.equal(429);
    expect(refused.body.detail).to.match(/wrong codes/);
  });
});
