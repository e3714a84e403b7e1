import { expect } from 'chai';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { api } from '../../support/http';
import { testEnv, withSecondApi } from '../../support/env';
import { fromIp, signUp, uniqueIp } from '../../support/auth';
import { loadConfig } from '../../../platform/config';

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

  it('answers the 6th login in a minute from one address with 429, right password or not', async () => {
    const owner = await signUp();
    const ip = uniqueIp();
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) {
      codes.push(
        (await api('POST', '/auth/login', { body: { email: owner.email, password: owner.password }, headers: fromIp(ip) })).status,
      );
    }
    expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
    // The spent address is throttled for other emails too...
    const res = await api('POST', '/auth/login', { body: { email: 'else@example.test', password: 'whatever-1' }, headers: fromIp(ip) });
    expect(res.status).to.equal(429);
    expect(res.headers.get('x-ratelimit-limit')).to.equal('5');
    // ...while successful logins cost the account nothing elsewhere (failures are counted in test/component/identity/login-limits.test.ts).
    expect(
      (await api('POST', '/auth/login', { body: { email: owner.email, password: owner.password }, headers: fromIp(uniqueIp()) })).status,
    ).to.equal(200);
  });

  it('limits register to 3 a minute and reset requests to 3 per 5 minutes per address', async () => {
    const ip = uniqueIp();
    const reg = [];
    for (let i = 0; i < 4; i++) {
      reg.push(
        (
          await api('POST', '/auth/register', {
            body: { email: `r${i}-${ip}@example.test`, password: 'long-enough-1', full_name: 'R' },
            headers: fromIp(ip),
          })
        ).status,
      );
    }
    expect(reg).to.deep.equal([201, 201, 201, 429]);
    const reset = [];
    for (let i = 0; i < 4; i++)
      reset.push((await api('POST', '/auth/password/reset-request', { body: { email: 'a@example.test' }, headers: fromIp(ip) })).status);
    expect(reset).to.deep.equal([202, 202, 202, 429]);
  });

  it('shares counters between two API instances on one Redis', async () => {
    const owner = await signUp();
    await withSecondApi({}, async (base) => {
      const ip = uniqueIp();
      const login = (b?: string) =>
        api('POST', '/auth/login', { base: b, body: { email: owner.email, password: owner.password }, headers: fromIp(ip) });
      const codes = [];
      for (let i = 0; i < 6; i++) codes.push((await login(i % 2 ? base : undefined)).status);
      expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
    });
  });

  it('refuses a body its Content-Encoding does not describe with 400 (415 for an unknown encoding), counted before it is read', async () => {
    const owner = await signUp();
    const ip = uniqueIp();
    const send = (path: string, encoding: string, body: string | Buffer, headers: Record<string, string>) =>
      fetch(`${testEnv().baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding, ...headers },
        body,
      });
    const plain = JSON.stringify({ email: owner.email, password: owner.password });
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await send('/auth/login', encoding, plain, fromIp(ip));
      expect(res.status, encoding).to.equal(400);
      expect(await res.json()).to.deep.equal({ detail: `Request body is not valid ${encoding} data (Content-Encoding: ${encoding})` });
    }
    const unknown = await send('/auth/login', 'compress', plain, fromIp(ip));
    expect(unknown.status).to.equal(415);
    expect(((await unknown.json()) as { detail: string }).detail).to.match(/Content-Encoding "compress"/);
    // A body that is so encoded is read as usual...
    expect((await send('/auth/login', 'gzip', gzipSync(plain), fromIp(ip))).status).to.equal(200);
    // ...and those five were counted: the sixth is refused before its body is read.
    const sixth = await send('/auth/login', 'gzip', plain, fromIp(ip));
    expect(sixth.status).to.equal(429);
    expect(sixth.headers.get('retry-after')).to.be.a('string');

    // Every other JSON route alike.
    const auth = { authorization: `Bearer ${owner.token}` };
    expect((await send('/contracts', 'br', '{"title":"x"}', auth)).status).to.equal(400);
    expect((await send('/auth/refresh', 'deflate', '{"refresh_token":"x"}', fromIp(uniqueIp()))).status).to.equal(400);
    const created = await send('/vendors', 'br', brotliCompressSync(JSON.stringify({ name: 'Brotli Ltd' })), auth);
    expect(created.status).to.equal(201);
  });

  describe('TRUST_PROXY', () => {
    const required = {
      JWT_SECRET: 'a-production-secret-of-at-least-32-characters',
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      PUBLIC_BASE_URL: 'https://contracts.example.test',
    };
    const production = (value?: string) =>
      loadConfig({ NODE_ENV: 'production', ...required, ...(value === undefined ? {} : { TRUST_PROXY: value }) }).TRUST_PROXY;

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
      const login = (base: string, forwardedFor: string, email = owner.email) =>
        api('POST', '/auth/login', { base, body: { email, password: owner.password }, headers: { 'x-forwarded-for': forwardedFor } });
      // Production's default: X-Forwarded-For is the client's own word, so a new one each time buys nothing.
      // Counters of their own: every request is counted on 127.0.0.1, which other tests' requests share.
      const REDIS_KEY_PREFIX = `${testEnv().config.REDIS_KEY_PREFIX}-${uniqueIp()}`;
      await withSecondApi({ TRUST_PROXY: production(), REDIS_KEY_PREFIX }, async (base) => {
        const codes = [];
        for (let i = 0; i < 6; i++) codes.push((await login(base, uniqueIp(), `nobody-${uniqueIp()}@example.test`)).status);
        expect(codes).to.deep.equal([401, 401, 401, 401, 401, 429]);
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
