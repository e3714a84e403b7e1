import { expect } from 'chai';
import { api } from './support/http';
import { withSecondApi } from './support/env';
import { fromIp, signUp, uniqueIp } from './support/auth';
import { loadConfig } from '../lib/config';

describe('rate limits', () => {
  it('carries X-RateLimit-* on every response and answers the 61st request in a minute with 429 and Retry-After', async () => {
    const owner = await signUp();
    const statuses: number[] = [];
    let last: Headers | undefined;
    for (let i = 0; i < 61; i++) {
      const res = await api('GET', '/team/members', { token: owner.token });
      statuses.push(res.status);
      if (i === 0) {
        expect(res.headers.get('x-ratelimit-limit')).to.equal('60');
        expect(res.headers.get('x-ratelimit-remaining')).to.equal('59');
        const reset = Number(res.headers.get('x-ratelimit-reset'));
        expect(reset).to.be.within(Date.now() / 1000, Date.now() / 1000 + 61);
      }
      last = res.headers;
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).to.equal(true);
    expect(statuses[60]).to.equal(429);
    expect(Number(last!.get('retry-after'))).to.be.within(1, 60);
    expect(last!.get('x-ratelimit-remaining')).to.equal('0');
    // Another principal is not affected.
    const other = await signUp();
    expect((await api('GET', '/team/members', { token: other.token })).status).to.equal(200);
  });

  it('answers the 6th login in a minute with 429, per address and per email', async () => {
    const owner = await signUp();
    const ip = uniqueIp();
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) {
      codes.push((await api('POST', '/auth/login', { body: { email: owner.email, password: owner.password }, headers: fromIp(ip) })).status);
    }
    expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
    // The same email from a fresh address is still throttled (the email counter is spent)...
    expect((await api('POST', '/auth/login', { body: { email: owner.email, password: owner.password }, headers: fromIp(uniqueIp()) })).status).to.equal(429);
    // ...and the spent address is throttled for other emails too.
    const res = await api('POST', '/auth/login', { body: { email: 'else@example.test', password: 'whatever-1' }, headers: fromIp(ip) });
    expect(res.status).to.equal(429);
    expect(res.headers.get('x-ratelimit-limit')).to.equal('5');
  });

  it('limits register to 3 a minute and reset requests to 3 per 5 minutes per address', async () => {
    const ip = uniqueIp();
    const reg = [];
    for (let i = 0; i < 4; i++) {
      reg.push((await api('POST', '/auth/register', { body: { email: `r${i}-${ip}@example.test`, password: 'long-enough-1', full_name: 'R' }, headers: fromIp(ip) })).status);
    }
    expect(reg).to.deep.equal([201, 201, 201, 429]);
    const reset = [];
    for (let i = 0; i < 4; i++) reset.push((await api('POST', '/auth/password/reset-request', { body: { email: 'a@example.test' }, headers: fromIp(ip) })).status);
    expect(reset).to.deep.equal([202, 202, 202, 429]);
  });

  it('shares counters between two API instances on one Redis', async () => {
    const owner = await signUp();
    await withSecondApi({}, async (base) => {
      const ip = uniqueIp();
      const login = (b?: string) => api('POST', '/auth/login', { base: b, body: { email: owner.email, password: owner.password }, headers: fromIp(ip) });
      const codes = [];
      for (let i = 0; i < 6; i++) codes.push((await login(i % 2 ? base : undefined)).status);
      expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
    });
  });

  describe('TRUST_PROXY', () => {
    const required = { JWT_SECRET: 'a-production-secret-of-at-least-32-characters', ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), PUBLIC_BASE_URL: 'https://contracts.example.test' };
    const production = (value?: string) => loadConfig({ NODE_ENV: 'production', ...required, ...(value === undefined ? {} : { TRUST_PROXY: value }) }).TRUST_PROXY;

    it('trusts no proxy in production unless told, loopback under development and test, and refuses what it cannot use', () => {
      expect(production()).to.equal(false);
      expect(loadConfig({ NODE_ENV: 'test' }).TRUST_PROXY).to.deep.equal(['loopback']);
      expect(loadConfig({ NODE_ENV: 'development' }).TRUST_PROXY).to.deep.equal(['loopback']);
      expect(production('2')).to.equal(2);
      expect(production('none')).to.equal(false);
      expect(production('10.0.0.0/8, loopback,2001:db8::1')).to.deep.equal(['10.0.0.0/8', 'loopback', '2001:db8::1']);
      for (const bad of ['true', '10.0.0.300', '10.0.0.0/33', 'fd00::/129', 'lb.example.com', '10.0.0.1/8/1', 'loopback,']) {
        expect(() => production(bad), bad).to.throw(/TRUST_PROXY: /);
      }
    });

    it('counts clients on the peer address unless the proxy in front is trusted', async () => {
      const owner = await signUp();
      const login = (base: string, forwardedFor: string, email = owner.email) => api('POST', '/auth/login', { base, body: { email, password: owner.password }, headers: { 'x-forwarded-for': forwardedFor } });
      // Production's default: X-Forwarded-For is the client's own word, so a new one each time buys nothing.
      await withSecondApi({ TRUST_PROXY: production() }, async (base) => {
        const codes = [];
        for (let i = 0; i < 6; i++) codes.push((await login(base, uniqueIp(), `nobody-${uniqueIp()}@example.test`)).status);
        // Other tests of this run may have logged in from 127.0.0.1 too: the refusal may come earlier, never later.
        expect(codes).to.include(429);
        expect(codes[5]).to.equal(429);
      });
      // One trusted hop (a load balancer appending the address it saw): its entry counts, not what the client wrote before it.
      await withSecondApi({ TRUST_PROXY: production('1') }, async (base) => {
        const client = uniqueIp();
        const codes = [];
        for (let i = 0; i < 6; i++) codes.push((await login(base, `${uniqueIp()}, ${client}`)).status);
        expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
      });
    });
  });
});
