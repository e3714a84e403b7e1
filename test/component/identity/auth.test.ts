import { expect } from 'chai';
import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { api } from '../../support/http';
import { testEnv } from '../../support/env';
import { addMember, enableMfa, fromIp, nextTotp, signUp, uniqueIp, type LoginBody, type TestUser } from '../../support/auth';
import { linkToken, waitForSubject } from '../../support/mailbox';
import { createApp } from '../../../api/app';
import { redisKey } from '../../../platform/redis';
import { totpNow } from '../../../platform/security/totp';
import { User } from '../../../models/user';

describe('auth: register and login', () => {
  it('registers a new organization owner and logs in with the login response shape', async () => {
    const owner = await signUp({ organizationName: 'Acme Legal' });
    expect(owner.user.role).to.equal('owner');
    const res = await api<LoginBody>('POST', '/auth/login', {
      body: { email: owner.email.toUpperCase(), password: owner.password },
      headers: fromIp(uniqueIp()),
    });
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
    const taken = await api('POST', '/auth/register', {
      body: { email: owner.email, password: 'long-enough-1', full_name: 'X' },
      headers: fromIp(uniqueIp()),
    });
    expect(taken.status).to.equal(409);
    const short = await api('POST', '/auth/register', {
      body: { email: 'short@example.test', password: 'short', full_name: 'X' },
      headers: fromIp(uniqueIp()),
    });
    expect(short.status).to.equal(400);
    expect(short.body).to.deep.equal({ detail: 'password: must be at least 8 characters' });
  });

  it('answers a wrong password and an unknown email alike with 401', async () => {
    const owner = await signUp();
    const wrong = await api('POST', '/auth/login', {
      body: { email: owner.email, password: 'not-the-password' },
      headers: fromIp(uniqueIp()),
    });
    const unknown = await api('POST', '/auth/login', {
      body: { email: 'nobody@example.test', password: 'not-the-password' },
      headers: fromIp(uniqueIp()),
    });
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
      const fresh = await api<LoginBody>('POST', '/auth/login', {
        base,
        body: { email: owner.email, password: owner.password },
        headers: fromIp(uniqueIp()),
      });
      expect((await api('GET', '/team/members', { token: fresh.body.access_token, base })).status).to.equal(200);
    } finally {
      await new Promise((r) => second.close(r));
    }
  });

  it('never lets MongoDB operators through: 400, nobody logged in', async () => {
    await signUp();
    for (const body of [
      { email: { $gt: '' }, password: { $gt: '' } },
      { email: { $ne: null }, password: 'x' },
    ]) {
      const res = await api('POST', '/auth/login', { body, headers: fromIp(uniqueIp()) });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.match(/^email: /);
    }
    const reset = await api('POST', '/auth/password/reset', {
      body: { token: { $ne: 'x' }, password: 'long-enough-pw' },
      headers: fromIp(uniqueIp()),
    });
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

  it('hashes passwords with scrypt N=2^17 and upgrades an older hash at the next successful login', async () => {
    const owner = await signUp();
    const stored = async () => (await User.findById(owner.user.id).lean())!.password_hash.split('$');
    expect((await stored()).slice(0, 4)).to.deep.equal(['scrypt', '131072', '8', '1']);

    // A hash from before: N=2^14, as the service wrote them until now.
    const salt = randomBytes(16);
    const old = [
      'scrypt',
      16384,
      8,
      1,
      salt.toString('base64'),
      scryptSync(owner.password, salt, 64, { N: 16384, r: 8, p: 1 }).toString('base64'),
    ].join('$');
    await User.updateOne({ _id: owner.user.id }, { $set: { password_hash: old } });
    const login = (password: string) => api('POST', '/auth/login', { body: { email: owner.email, password }, headers: fromIp(uniqueIp()) });
    expect((await login('not-the-password')).status).to.equal(401);
    expect((await User.findById(owner.user.id).lean())!.password_hash).to.equal(old);
    expect((await login(owner.password)).status).to.equal(200);
    const upgraded = await stored();
    expect(upgraded.slice(0, 4)).to.deep.equal(['scrypt', '131072', '8', '1']);
    expect(upgraded[4]).to.not.equal(salt.toString('base64'));
    expect((await login(owner.password)).status).to.equal(200);
  });
});

describe('auth: password reset', () => {
  it('answers 202 either way, mails the code, and the reset ends old sessions', async () => {
    const owner = await signUp();
    const unknown = await api('POST', '/auth/password/reset-request', {
      body: { email: 'nobody@example.test' },
      headers: fromIp(uniqueIp()),
    });
    const known = await api('POST', '/auth/password/reset-request', { body: { email: owner.email }, headers: fromIp(uniqueIp()) });
    expect(unknown.status).to.equal(202);
    expect(known.status).to.equal(202);
    expect(known.body).to.deep.equal(unknown.body);
    expect(known.text).to.not.match(/token/i);
    const mail = await waitForSubject(owner.email, 'Reset your password');
    const token = linkToken(mail, 'reset-password');
    const bad = await api('POST', '/auth/password/reset', { body: { token: 'wrong', password: 'new-password-1' } });
    expect(bad.status).to.equal(400);
    const ok = await api('POST', '/auth/password/reset', { body: { token, password: 'new-password-1' } });
    expect(ok.status).to.equal(204);
    expect((await api('POST', '/auth/password/reset', { body: { token, password: 'new-password-2' } })).status).to.equal(400);
    expect((await api('GET', '/team/members', { token: owner.token })).status).to.equal(401);
    expect((await api('POST', '/auth/refresh', { body: { refresh_token: owner.refreshToken } })).status).to.equal(401);
    const oldPw = await api('POST', '/auth/login', { body: { email: owner.email, password: owner.password }, headers: fromIp(uniqueIp()) });
    expect(oldPw.status).to.equal(401);
    const newPw = await api('POST', '/auth/login', {
      body: { email: owner.email, password: 'new-password-1' },
      headers: fromIp(uniqueIp()),
    });
    expect(newPw.status).to.equal(200);
  });
});

describe('auth: MFA', () => {
  interface MfaLogin {
    mfa_required: boolean;
    mfa_token: string;
    mfa_enrollment?: { secret: string; otpauth_url: string };
  }
  const login = (u: TestUser) =>
    api<MfaLogin>('POST', '/auth/login', { body: { email: u.email, password: u.password }, headers: fromIp(uniqueIp()) });

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

  interface Activity {
    type: string;
    resource_id: string;
    summary: string;
    actor: { id: string | null };
  }
  const activities = async (u: TestUser, type: string) =>
    (await api<{ activities: Activity[] }>('GET', `/analytics/activity?type=${type}`, { token: u.token })).body.activities.filter(
      (a) => a.resource_id === u.user.id,
    );

  it("applies the organization's mfa_required to a member who joins by invitation: an enrollment, not a session", async () => {
    const owner = await signUp();
    expect((await api('PUT', '/settings/organization', { token: owner.token, body: { mfa_required: true } })).status).to.equal(200);
    const email = `joiner-${randomUUID()}@example.test`;
    const inv = await api<{ invite_token: string }>('POST', '/team/invite', { token: owner.token, body: { email, role: 'admin' } });
    const reg = await api<MfaLogin & Partial<LoginBody>>('POST', '/auth/register', {
      body: { email, password: 'long-enough-1', full_name: 'Joiner', invite_token: inv.body.invite_token },
      headers: fromIp(uniqueIp()),
    });
    expect(reg.status).to.equal(201);
    expect(reg.body.mfa_required).to.equal(true);
    expect(reg.body).to.not.have.property('access_token');
    expect(reg.body).to.not.have.property('refresh_token');
    const { secret } = reg.body.mfa_enrollment!;
    const ok = await api<LoginBody & { recovery_codes: string[] }>('POST', '/auth/mfa/verify', {
      body: { mfa_token: reg.body.mfa_token, code: await totpNow(secret) },
    });
    expect(ok.status).to.equal(200);
    expect(ok.body.user).to.include({ organization_id: owner.organizationId, role: 'admin' });
    // Enrolled by that first verification: recovery codes once, and the feed says so.
    expect(ok.body.recovery_codes).to.have.length(10);
    const joined = { ...owner, token: ok.body.access_token, user: ok.body.user };
    expect((await activities(joined, 'team.mfa_enabled')).map((a) => a.summary)).to.deep.equal(['Joiner enabled MFA']);
  });

  it('does not let an access token alone replace an enrolled authenticator: a current code or the password is needed', async () => {
    const owner = await signUp();
    const first = await enableMfa(owner);
    expect(first.recoveryCodes).to.have.length(10);
    for (const c of first.recoveryCodes) expect(c).to.match(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    expect(new Set(first.recoveryCodes).size).to.equal(10);
    expect(JSON.stringify(await User.findById(owner.user.id).lean())).to.not.contain(first.recoveryCodes[0]!.replace(/-/g, '')); // kept hashed

    // What a thief holding only the access token can send.
    const setup = (body?: Record<string, string>) =>
      api<{ secret: string }>('POST', '/auth/mfa/setup', { token: owner.token, ...(body ? { body } : {}) });
    const none = await setup();
    expect(none.status).to.equal(403);
    expect(none.body).to.deep.equal({ detail: 'MFA is enrolled: send a current code or your password to replace it' });
    expect((await setup({ password: 'not-the-password' })).status).to.equal(403);
    expect((await setup({ code: '000000' })).status).to.equal(403);
    expect((await api('POST', '/auth/mfa/enable', { token: owner.token, body: { code: await nextTotp(first.secret) } })).status).to.equal(
      400,
    );

    // The owner, with the password: a new authenticator and new recovery codes; the old ones stop.
    const again = await setup({ password: owner.password });
    expect(again.status).to.equal(200);
    const enabled = await api<{ recovery_codes: string[] }>('POST', '/auth/mfa/enable', {
      token: owner.token,
      body: { code: await totpNow(again.body.secret) },
    });
    expect(enabled.status).to.equal(200);
    expect(enabled.body.recovery_codes).to.have.length(10);
    const challenge = await login(owner);
    expect(
      (await api('POST', '/auth/mfa/verify', { body: { mfa_token: challenge.body.mfa_token, code: first.recoveryCodes[0] } })).status,
    ).to.equal(401);
    expect((await activities(owner, 'team.mfa_enabled')).map((a) => a.summary)).to.deep.equal([
      'Test Owner moved MFA to a new authenticator',
      'Test Owner enabled MFA',
    ]);

    // Wrong proofs are counted per account: after five in 15 minutes even the right password is refused.
    for (let i = 0; i < 3; i++) expect((await setup({ password: `wrong-${i}` })).status).to.equal(403);
    const blocked = await setup({ password: owner.password });
    expect(blocked.status).to.equal(429);
    expect(Number(blocked.headers.get('retry-after'))).to.be.above(0);
  });

  it("lets the owner back in after a password reset: the thief's token ends, and the enrolled authenticator still stands", async () => {
    const owner = await signUp();
    const { secret } = await enableMfa(owner);
    const stolen = owner.token;
    expect((await api('POST', '/auth/mfa/setup', { token: stolen })).status).to.equal(403);

    await api('POST', '/auth/password/reset-request', { body: { email: owner.email }, headers: fromIp(uniqueIp()) });
    const mail = await waitForSubject(owner.email, 'Reset your password');
    expect(
      (await api('POST', '/auth/password/reset', { body: { token: linkToken(mail, 'reset-password'), password: 'new-password-1' } }))
        .status,
    ).to.equal(204);
    expect((await api('POST', '/auth/mfa/setup', { token: stolen })).status).to.equal(401);

    const challenge = await login({ ...owner, password: 'new-password-1' });
    expect(challenge.body.mfa_required).to.equal(true);
    expect(challenge.body).to.not.have.property('mfa_enrollment');
    const ok = await api<LoginBody>('POST', '/auth/mfa/verify', {
      body: { mfa_token: challenge.body.mfa_token, code: await nextTotp(secret) },
    });
    expect(ok.status).to.equal(200);
    expect(ok.body.user.id).to.equal(owner.user.id);
  });

  it('accepts each recovery code once in place of a TOTP code, and records its use', async () => {
    const owner = await signUp();
    const { recoveryCodes } = await enableMfa(owner);
    const verify = async (code: string) =>
      api<LoginBody>('POST', '/auth/mfa/verify', { body: { mfa_token: (await login(owner)).body.mfa_token, code } });

    // Typed as people type it: upper case, without dashes.
    const ok = await verify(recoveryCodes[3]!.replace(/-/g, '').toUpperCase());
    expect(ok.status).to.equal(200);
    expect(ok.body.user.id).to.equal(owner.user.id);
    expect((await verify(recoveryCodes[3]!)).status).to.equal(401);
    expect((await verify('abcd-efgh-2345-mnop')).status).to.equal(401);
    expect((await verify(recoveryCodes[4]!)).status).to.equal(200);

    const used = await activities({ ...owner, token: ok.body.access_token }, 'team.mfa_recovery_code_used');
    expect(used.map((a) => a.summary)).to.deep.equal([
      'Test Owner signed in with a recovery code (8 left)',
      'Test Owner signed in with a recovery code (9 left)',
    ]);
  });

  it("answers 401, never 500, when the last used time step is ahead of this server's clock", async () => {
    const owner = await signUp();
    const { secret } = await enableMfa(owner);
    // Another instance whose clock runs five minutes ahead accepted a code of its "now".
    const ahead = Math.floor(Date.now() / 30000) + 10;
    await User.updateOne({ _id: owner.user.id }, { $set: { mfa_last_step: ahead } });
    for (const code of [await nextTotp(secret), '123456', '12345x', '']) {
      const res = await api('POST', '/auth/mfa/verify', { body: { mfa_token: (await login(owner)).body.mfa_token, code } });
      expect(res.status, code).to.equal(401);
      expect(res.body).to.deep.equal({ detail: 'Invalid code' });
    }
  });
});
