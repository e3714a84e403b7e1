import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { api } from './support/http';
import { testEnv } from './support/env';
import { fromIp, signUp, uniqueIp } from './support/auth';
import { createApp } from '../api/app';

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
    const second: Server = createApp(testEnv().services).listen(0, '127.0.0.1');
    await new Promise<void>((r) => second.once('listening', () => r()));
    try {
      const base = `http://127.0.0.1:${(second.address() as AddressInfo).port}/api/v1`;
      const ip = uniqueIp();
      const login = (b?: string) => api('POST', '/auth/login', { base: b, body: { email: owner.email, password: owner.password }, headers: fromIp(ip) });
      const codes = [];
      for (let i = 0; i < 6; i++) codes.push((await login(i % 2 ? base : undefined)).status);
      expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
    } finally {
      await new Promise((r) => second.close(r));
    }
  });
});
