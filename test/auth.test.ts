import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { api } from './support/http';
import { testEnv } from './support/env';
import { addMember, fromIp, signUp, uniqueIp, type LoginBody, type TestUser } from './support/auth';
import { createApp } from '../api/app';
import { redisKey } from '../lib/redis';
import { totpNow } from '../lib/totp';
import { OutgoingMail } from '../models/outgoing-mail';
import { User } from '../models/user';

describe('auth: register and login', () => {
  it('registers a new organization owner and logs in with the login response shape', async () => {
    const owner = await signUp({ organizationName: 'Acme Legal' });
    expect(owner.user.role).to.equal('owner');
    const res = await api<LoginBody>('POST', '/auth/login', { body: { email: owner.email.toUpperCase(), password: owner.password }, headers: fromIp(uniqueIp()) });
    expect(res.status).to.equal(200);
    expect(res.body.token_type).to.equal('bearer');
    expect(res.body.expires_in).to.equal(1800);
    expect(res.body.refresh_expires_in).to.equal(604800);
    expect(res.body.user).to.deep.equal(owner.user);
    expect(res.body.refresh_token).to.be.a('string').with.length.above(40);
    const members = await api('GET', '/team/members', { token: res.body.access_token });
    expect(members.status).to.equal(200);
  });

  it('rejects a taken email with 409 and a short password with 400', async () => {
    const owner = await signUp();
    const taken = await api('POST', '/auth/register', { body: { email: owner.email, password: 'long-enough-1', full_name: 'X' }, headers: fromIp(uniqueIp()) });
    expect(taken.status).to.equal(409);
    const short = await api('POST', '/auth/register', { body: { email: 'short@example.test', password: 'short', full_name: 'X' }, headers: fromIp(uniqueIp()) });
    expect(short.status).to.equal(400);
    expect(short.body).to.deep.equal({ detail: 'password: must be at least 8 characters' });
  });

  it('answers a wrong password and an unknown email alike with 401', async () => {
    const owner = await signUp();
    const wrong = await api('POST', '/auth/login', { body: { email: owner.email, password: 'not-the-password' }, headers: fromIp(uniqueIp()) });
    const unknown = await api('POST', '/auth/login', { body: { email: 'nobody@example.test', password: 'not-the-password' }, headers: fromIp(uniqueIp()) });
    expect(wrong.status).to.equal(401);
    expect(unknown.status).to.equal(401);
    expect(wrong.body).to.deep.equal(unknown.body);
  });

  it('lets an invited member join with the invited role', async () => {
    const owner = await signUp();
    const viewer = await addMember(owner, 'viewer');
    expect(viewer.user.role).to.equal('viewer');
    expect(viewer.organizationId).to.equal(owner.organizationId);
  });

  it('answers 401 without a credential', async () => {
    const res = await api('GET', '/team/members');
    expect(res.status).to.equal(401);
    expect(res.body).to.have.property('detail');
  });
});

describe('auth: tokens', () => {
  const { sign } = jwt;
  const cfg = () => testEnv().config;
  const claimsOf = (token: string) => jwt.decode(token) as { sub: string; org: string; sev: number; jti: string };

  it('refuses expired, tampered, alg none, foreign-key and wrong-audience tokens with 401', async () => {
    const owner = await signUp();
    const c = claimsOf(owner.token);
    const base = { org: c.org, sev: c.sev };
    const opts = { subject: c.sub, issuer: cfg().JWT_ISSUER, audience: cfg().JWT_AUDIENCE, jwtid: randomUUID() };
    const expired = sign({ ...base, exp: Math.floor(Date.now() / 1000) - 10 }, cfg().JWT_SECRET, { ...opts, algorithm: 'HS256' });
    const [h, p, sig] = owner.token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, sev: 0, org: c.org, sub: c.sub, role: 'owner', exp: Number(payload.exp) + 999 })).toString('base64url')}.${sig}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    const foreign = sign(base, 'another-secret-that-is-long-enough-0123456789', { ...opts, algorithm: 'HS256', expiresIn: 600 });
    const wrongAudience = sign(base, cfg().JWT_SECRET, { ...opts, audience: 'someone-else', algorithm: 'HS256', expiresIn: 600 });
    const good = sign(base, cfg().JWT_SECRET, { ...opts, algorithm: 'HS256', expiresIn: 600 });
    for (const token of [expired, tampered, none, foreign, wrongAudience, 'not-a-jwt']) {
      const res = await api('GET', '/team/members', { token });
      expect(res.status, token).to.equal(401);
    }
    expect((await api('GET', '/team/members', { token: good })).status).to.equal(200);
  });

  it('rotates refresh tokens and revokes the family when a used one comes back', async () => {
    const owner = await signUp();
    const first = await api<LoginBody>('POST', '/auth/refresh', { body: { refresh_token: owner.refreshToken } });
    expect(first.status).to.equal(200);
    expect(first.body.token_type).to.equal('bearer');
    expect(first.body.expires_in).to.equal(1800);
    expect(first.body.refresh_token).to.not.equal(owner.refreshToken);
    expect((await api('GET', '/team/members', { token: first.body.access_token })).status).to.equal(200);
    const reused = await api('POST', '/auth/refresh', { body: { refresh_token: owner.refreshToken } });
    expect(reused.status).to.equal(401);
    // The thief's replay also killed the legitimate holder's newer token.
    const after = await api('POST', '/auth/refresh', { body: { refresh_token: first.body.refresh_token } });
    expect(after.status).to.equal(401);
  });

  it('logout blacklists the access and refresh tokens, also for a restarted service', async () => {
    const owner = await signUp();
    const out = await api('POST', '/auth/logout', { token: owner.token, body: { refresh_token: owner.refreshToken } });
    expect(out.status).to.equal(204);
    expect((await api('GET', '/team/members', { token: owner.token })).status).to.equal(401);
    expect((await api('POST', '/auth/refresh', { body: { refresh_token: owner.refreshToken } })).status).to.equal(401);
    // A second app instance after Redis lost its copy of the blacklist: the store still knows.
    await testEnv().services.redis.del(redisKey(testEnv().config, 'revoked-jtis'));
    const second = createApp(testEnv().services).listen(0, '127.0.0.1');
    await new Promise<void>((r) => second.once('listening', () => r()));
    try {
      const base = `http://127.0.0.1:${(second.address() as AddressInfo).port}/api/v1`;
      expect((await api('GET', '/team/members', { token: owner.token, base })).status).to.equal(401);
      const fresh = await api<LoginBody>('POST', '/auth/login', { base, body: { email: owner.email, password: owner.password }, headers: fromIp(uniqueIp()) });
      expect((await api('GET', '/team/members', { token: fresh.body.access_token, base })).status).to.equal(200);
    } finally {
      await new Promise((r) => second.close(r));
    }
  });

  it('never lets MongoDB operators through: 400, nobody logged in', async () => {
    await signUp();
    for (const body of [{ email: { $gt: '' }, password: { $gt: '' } }, { email: { $ne: null }, password: 'x' }]) {
      const res = await api('POST', '/auth/login', { body, headers: fromIp(uniqueIp()) });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.match(/^email: /);
    }
    const reset = await api('POST', '/auth/password/reset', { body: { token: { $ne: 'x' }, password: 'long-enough-pw' }, headers: fromIp(uniqueIp()) });
    expect(reset.status).to.equal(400);
    const refresh = await api('POST', '/auth/refresh', { body: { refresh_token: { $ne: 'x' } } });
    expect(refresh.status).to.equal(400);
  });

  it('takes as long for an unknown email as for a wrong password', async () => {
    const owner = await signUp();
    const time = async (email: string) => {
      const t0 = performance.now();
      const res = await api('POST', '/auth/login', { body: { email, password: 'wrong-password' }, headers: fromIp(uniqueIp()) });
      expect(res.status).to.equal(401);
      return performance.now() - t0;
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      known.push(await time(owner.email));
      unknown.push(await time(`nobody-${i}@example.test`));
    }
    const [k, u] = [median(known), median(unknown)];
    expect(u, `unknown ${u.toFixed(1)} ms vs wrong password ${k.toFixed(1)} ms`).to.be.within(k * 0.6, k * 1.6);
    expect(u).to.be.above(5); // scrypt ran
  });
});

describe('auth: password reset', () => {
  it('answers 202 either way, mails the code, and the reset ends old sessions', async () => {
    const owner = await signUp();
    const unknown = await api('POST', '/auth/password/reset-request', { body: { email: 'nobody@example.test' }, headers: fromIp(uniqueIp()) });
    const known = await api('POST', '/auth/password/reset-request', { body: { email: owner.email }, headers: fromIp(uniqueIp()) });
    expect(unknown.status).to.equal(202);
    expect(known.status).to.equal(202);
    expect(known.body).to.deep.equal(unknown.body);
    expect(known.text).to.not.match(/token/i);
    const mail = await OutgoingMail.findOne({ to: owner.email, kind: 'password_reset' }).lean();
    const token = (mail!.data as { token: string }).token;
    expect(mail!.body).to.contain(token);
    const bad = await api('POST', '/auth/password/reset', { body: { token: 'wrong', password: 'new-password-1' } });
    expect(bad.status).to.equal(400);
    const ok = await api('POST', '/auth/password/reset', { body: { token, password: 'new-password-1' } });
    expect(ok.status).to.equal(204);
    expect((await api('POST', '/auth/password/reset', { body: { token, password: 'new-password-2' } })).status).to.equal(400);
    expect((await api('GET', '/team/members', { token: owner.token })).status).to.equal(401);
    expect((await api('POST', '/auth/refresh', { body: { refresh_token: owner.refreshToken } })).status).to.equal(401);
    const oldPw = await api('POST', '/auth/login', { body: { email: owner.email, password: owner.password }, headers: fromIp(uniqueIp()) });
    expect(oldPw.status).to.equal(401);
    const newPw = await api('POST', '/auth/login', { body: { email: owner.email, password: 'new-password-1' }, headers: fromIp(uniqueIp()) });
    expect(newPw.status).to.equal(200);
  });
});

describe('auth: MFA', () => {
  interface MfaLogin { mfa_required: boolean; mfa_token: string; mfa_enrollment?: { secret: string; otpauth_url: string } }
  const login = (u: TestUser) => api<MfaLogin>('POST', '/auth/login', { body: { email: u.email, password: u.password }, headers: fromIp(uniqueIp()) });

  it('requires a TOTP code when the organization asks for it, enrolling users without a secret', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    expect((await api('PUT', '/settings/organization', { token: member.token, body: { mfa_required: true } })).status).to.equal(403);
    const set = await api('PUT', '/settings/organization', { token: owner.token, body: { mfa_required: true } });
    expect(set.status).to.equal(200);
    expect(set.body.mfa_required).to.equal(true);

    const first = await login(member);
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ mfa_required: true });
    expect(first.body).to.not.have.property('access_token');
    const { secret, otpauth_url } = first.body.mfa_enrollment!;
    expect(otpauth_url).to.match(/^otpauth:\/\/totp\//);
    const stored = await User.findById(member.user.id).lean();
    expect(JSON.stringify(stored)).to.not.contain(secret); // sealed at rest

    const wrong = await api('POST', '/auth/mfa/verify', { body: { mfa_token: first.body.mfa_token, code: '000000' } });
    expect(wrong.status).to.equal(401);
    // The token was spent by that attempt.
    const spent = await api('POST', '/auth/mfa/verify', { body: { mfa_token: first.body.mfa_token, code: await totpNow(secret) } });
    expect(spent.status).to.equal(401);

    const second = await login(member);
    expect(second.body.mfa_enrollment).to.have.property('secret');
    const code = await totpNow(second.body.mfa_enrollment!.secret);
    const ok = await api<LoginBody>('POST', '/auth/mfa/verify', { body: { mfa_token: second.body.mfa_token, code } });
    expect(ok.status).to.equal(200);
    expect(ok.body.user.id).to.equal(member.user.id);
    expect((await api('GET', '/team/members', { token: ok.body.access_token })).status).to.equal(200);
    const again = await api('POST', '/auth/mfa/verify', { body: { mfa_token: second.body.mfa_token, code } });
    expect(again.status).to.equal(401);

    // Enrolled now: no new secret at the next login, and the same code is not accepted twice.
    const third = await login(member);
    expect(third.body).to.not.have.property('mfa_enrollment');
    const replay = await api('POST', '/auth/mfa/verify', { body: { mfa_token: third.body.mfa_token, code } });
    expect(replay.status).to.equal(401);
  });

  it('lets a user enroll on their own, after which login asks for a code', async () => {
    const owner = await signUp();
    const setup = await api<{ secret: string; otpauth_url: string }>('POST', '/auth/mfa/setup', { token: owner.token });
    expect(setup.status).to.equal(200);
    expect((await api('POST', '/auth/mfa/enable', { token: owner.token, body: { code: '123' } })).status).to.equal(400);
    const enable = await api('POST', '/auth/mfa/enable', { token: owner.token, body: { code: await totpNow(setup.body.secret) } });
    expect(enable.status).to.equal(200);
    const res = await login(owner);
    expect(res.body.mfa_required).to.equal(true);
    expect(res.body).to.not.have.property('mfa_enrollment');
    // A code of the next step (the one just used at enable cannot be replayed).
    const code = await totpNow(setup.body.secret, Math.floor(Date.now() / 1000) + 30);
    const ok = await api<LoginBody>('POST', '/auth/mfa/verify', { body: { mfa_token: res.body.mfa_token, code } });
    expect(ok.status).to.equal(200);
    expect(ok.body.access_token).to.be.a('string');
  });
});
