/**
 * SSO through HTTP against real OpenID providers on loopback: oidc-provider (certified) for the
 * flows, and a provider of the test's own making for ID tokens with one defect each.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testEnv } from '../../support/env';
import { api, type ApiResponse } from '../../support/http';
import { addMember, enableMfa, fromIp, nextTotp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { waitForSubject } from '../../support/mailbox';
import { startOidcProvider, startRogueProvider, type Account, type OidcProvider, type RogueProvider } from '../../support/oidc';

interface SsoView {
  slug: string;
  redirect_uri: string;
  client_secret_set: boolean;
  client_secret?: string;
  login_url: string;
}

const settingsBody = (p: { issuer: string; clientId: string; clientSecret: string }, extra: Record<string, unknown> = {}) => ({
  enabled: true,
  issuer: p.issuer,
  client_id: p.clientId,
  client_secret: p.clientSecret,
  allowed_domains: ['example.test'],
  default_role: 'viewer',
  auto_provision: true,
  group_role_map: { 'legal-admins': 'admin' },
  ...extra,
});

/** Makes the slug (and so the redirect URI) before the provider, which must know its client's redirect URI. */
async function configure(owner: TestUser): Promise<SsoView> {
  const placeholder = { issuer: 'http://127.0.0.1:9/placeholder', clientId: 'placeholder', clientSecret: 'placeholder' };
  const res = await api<SsoView>('PUT', '/settings/sso', {
    token: owner.token,
    body: settingsBody(placeholder),
    headers: fromIp(owner.ip),
  });
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

/** A browser's trip: our start (302 and its cookie), the provider, then our callback with that cookie. */
async function signInThrough(
  provider: OidcProvider,
  view: SsoView,
  sub: string,
  opts: { tamper?: (q: URLSearchParams) => void; cookie?: string } = {},
) {
  const start = await fetch(`${testEnv().baseUrl}/auth/sso/${view.slug}/start`, { redirect: 'manual', headers: fromIp(uniqueIp()) });
  expect(start.status, await start.clone().text()).to.equal(302);
  const cookie = start.headers
    .getSetCookie()
    .find((c) => c.startsWith('sso_binding='))!
    .split(';')[0]!;
  const location = new URL(start.headers.get('location')!);
  expect(location.searchParams.get('code_challenge_method')).to.equal('S256');
  for (const p of ['state', 'nonce', 'code_challenge']) expect(location.searchParams.get(p), p).to.be.a('string').with.length.above(20);
  const back = await provider.authorize(location.href, sub);
  expect(back.href.startsWith(view.redirect_uri)).to.equal(true);
  opts.tamper?.(back.searchParams);
  const callback = (headers: Record<string, string> = { cookie: opts.cookie ?? cookie }) =>
    api<Record<string, unknown>>('GET', `/auth/sso/${view.slug}/callback?${back.searchParams.toString()}`, {
      headers: { ...headers, ...fromIp(uniqueIp()) },
    });
  return { res: await callback(), again: callback, cookie };
}

const members = async (owner: TestUser) =>
  (
    await api<{ members: Array<{ id: string; email: string; role: string }> }>('GET', '/team/members', {
      token: owner.token,
      headers: fromIp(owner.ip),
    })
  ).body.members;

const signedInAs = (res: ApiResponse<Record<string, unknown>>) =>
  (res.body.user as { id: string; email: string; role: string } | undefined) ?? null;

describe('SSO (OpenID Connect)', function () {
  this.timeout(120_000);
  let owner: TestUser;
  let view: SsoView;
  let provider: OidcProvider;
  const accounts: Record<string, Account> = {};
  const account = (a: Account) => {
    const sub = `sub-${randomBytes(6).toString('hex')}`;
    accounts[sub] = { email_verified: true, name: 'Sam Example', ...a };
    return sub;
  };

  before(async () => {
    owner = await signUp({ organizationName: `SSO Org ${randomBytes(3).toString('hex')}` });
    view = await configure(owner);
    provider = await startOidcProvider({ redirectUri: view.redirect_uri, accounts });
    const res = await api<SsoView>('PUT', '/settings/sso', { token: owner.token, body: settingsBody(provider), headers: fromIp(owner.ip) });
    expect(res.status, res.text).to.equal(200);
  });
  after(async () => provider?.close());

  describe('settings', () => {
    it('keep the client secret write-only and find the provider on test', async () => {
      const got = await api<SsoView>('GET', '/settings/sso', { token: owner.token, headers: fromIp(owner.ip) });
      expect(got.status).to.equal(200);
      expect(got.body.client_secret_set).to.equal(true);
      expect(got.text).not.to.include(provider.clientSecret);
      expect(got.body.login_url).to.match(new RegExp(`/api/v1/auth/sso/${got.body.slug}/start$`));
      const test = await api<{ ok: boolean; keys: number; issuer: string }>('POST', '/settings/sso/test', {
        token: owner.token,
        headers: fromIp(owner.ip),
      });
      expect(test.status).to.equal(200);
      expect(test.body).to.include({ ok: true, issuer: provider.issuer });
      expect(test.body.keys).to.be.at.least(1);
    });

    it('refuse a metadata address as issuer, members who are not admins, and show another organization nothing', async () => {
      const bad = await api('PUT', '/settings/sso', {
        token: owner.token,
        body: settingsBody({ ...provider, issuer: 'http://169.254.169.254/latest' }),
        headers: fromIp(owner.ip),
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.detail).to.match(/^issuer: /);
      const member = await signUpMember(owner);
      const refused = await api('PUT', '/settings/sso', { token: member.token, body: settingsBody(provider), headers: fromIp(member.ip) });
      expect(refused.status).to.equal(403);
      expect((await api('GET', '/settings/sso', { token: member.token, headers: fromIp(member.ip) })).status).to.equal(403);
      const other = await signUp();
      const foreign = await api('GET', '/settings/sso', { token: other.token, headers: fromIp(other.ip) });
      expect(foreign.status).to.equal(200);
      expect(foreign.body).to.deep.equal({ configured: false, enabled: false });
    });
  });

  describe('sign-in', () => {
    it('creates the member at the first sign-in with the default role, and reuses it at the second', async () => {
      const email = `sso-${randomBytes(4).toString('hex')}@example.test`;
      const sub = account({ email });
      const first = await signInThrough(provider, view, sub);
      expect(first.res.status, first.res.text).to.equal(200);
      expect(first.res.body.access_token).to.be.a('string');
      const user = signedInAs(first.res)!;
      expect(user).to.include({ email, role: 'viewer', organization_id: owner.organizationId });
      const second = await signInThrough(provider, view, sub);
      expect(second.res.status).to.equal(200);
      expect(signedInAs(second.res)!.id).to.equal(user.id);
      expect((await members(owner)).filter((m) => m.email === email)).to.have.length(1);
      const me = await api('GET', '/contracts', { token: second.res.body.access_token as string, headers: fromIp(uniqueIp()) });
      expect(me.status).to.equal(200);
    });

    it("maps the provider's groups to a role", async () => {
      const sub = account({ email: `admin-${randomBytes(4).toString('hex')}@example.test`, groups: ['legal-admins', 'staff'] });
      const { res } = await signInThrough(provider, view, sub);
      expect(res.status, res.text).to.equal(200);
      expect(signedInAs(res)!.role).to.equal('admin');
    });

    it('refuses an unverified email and a domain not allowed with 403', async () => {
      const unverified = await signInThrough(
        provider,
        view,
        account({ email: `u-${randomBytes(4).toString('hex')}@example.test`, email_verified: false }),
      );
      expect(unverified.res.status).to.equal(403);
      expect(unverified.res.headers.get('x-error-code')).to.equal('sso_email_unverified');
      const foreign = await signInThrough(provider, view, account({ email: `f-${randomBytes(4).toString('hex')}@elsewhere.test` }));
      expect(foreign.res.status).to.equal(403);
      expect(foreign.res.headers.get('x-error-code')).to.equal('sso_domain_not_allowed');
    });

    it('refuses a tampered state, a replayed callback and a browser without the cookie with 401', async () => {
      const sub = account({ email: `t-${randomBytes(4).toString('hex')}@example.test` });
      const tampered = await signInThrough(provider, view, sub, { tamper: (q) => q.set('state', `${q.get('state')}x`) });
      expect(tampered.res.status).to.equal(401);
      expect(tampered.res.body.detail).to.match(/state/);

      const fine = await signInThrough(provider, view, sub);
      expect(fine.res.status).to.equal(200);
      const replayed = await fine.again();
      expect(replayed.status).to.equal(401);
      expect(replayed.body.access_token).to.equal(undefined);

      const elsewhere = await signInThrough(provider, view, sub, { cookie: 'sso_binding=another-browser' });
      expect(elsewhere.res.status).to.equal(401);
      expect(elsewhere.res.body.detail).to.match(/browser/);
    });

    it('never signs in as an existing member on the email alone: another subject with that email gets a mailed confirmation', async () => {
      const email = `same-${randomBytes(4).toString('hex')}@example.test`;
      const original = await signInThrough(provider, view, account({ email }));
      expect(original.res.status).to.equal(200);
      const impostor = await signInThrough(provider, view, account({ email }));
      expect(impostor.res.status).to.equal(202);
      expect(impostor.res.body).to.include({ link_required: true });
      expect(impostor.res.body.access_token).to.equal(undefined);
    });

    it('links an existing password account only after it confirms the mailed link', async () => {
      const member = await signUpMember(owner);
      const sub = account({ email: member.email });
      const first = await signInThrough(provider, view, sub);
      expect(first.res.status, first.res.text).to.equal(202);
      const mail = await waitForSubject(member.email, 'Confirm signing in with your identity provider');
      const token = /\/sso-link\/([A-Za-z0-9]+)/.exec(mail.text)![1]!;
      const confirmed = await api('POST', '/auth/sso/link/confirm', { body: { token }, headers: fromIp(uniqueIp()) });
      expect(confirmed.status, confirmed.text).to.equal(200);
      expect(signedInAs(confirmed)!.id).to.equal(member.user.id);
      const reused = await api('POST', '/auth/sso/link/confirm', { body: { token }, headers: fromIp(uniqueIp()) });
      expect(reused.status).to.equal(400);
      const next = await signInThrough(provider, view, sub);
      expect(next.res.status).to.equal(200);
      expect(signedInAs(next.res)!.id).to.equal(member.user.id);
    });

    it('asks a member with MFA for the TOTP code before any token', async () => {
      const member = await signUpMember(owner);
      const { secret } = await enableMfa(member);
      const sub = account({ email: member.email });
      await signInThrough(provider, view, sub);
      const mail = await waitForSubject(member.email, 'Confirm signing in with your identity provider');
      const token = /\/sso-link\/([A-Za-z0-9]+)/.exec(mail.text)![1]!;
      const confirmed = await api('POST', '/auth/sso/link/confirm', { body: { token }, headers: fromIp(uniqueIp()) });
      expect(confirmed.body.mfa_required).to.equal(true);
      const { res } = await signInThrough(provider, view, sub);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ mfa_required: true });
      expect(res.body.access_token).to.equal(undefined);
      const verified = await api('POST', '/auth/mfa/verify', {
        body: { mfa_token: res.body.mfa_token, code: await nextTotp(secret) },
        headers: fromIp(uniqueIp()),
      });
      expect(verified.status, verified.text).to.equal(200);
      expect(signedInAs(verified)!.id).to.equal(member.user.id);
    });
  });

  describe('enforced', () => {
    it('refuses a password sign-in of an allowed domain with 403 sso_required, but keeps an owner with MFA', async () => {
      const org = await signUp();
      const member = await signUpMember(org);
      await configure(org);
      const on = await api('PUT', '/settings/sso', {
        token: org.token,
        body: settingsBody(provider, { enforce_sso: true }),
        headers: fromIp(org.ip),
      });
      expect(on.status, on.text).to.equal(200);
      const password = await api('POST', '/auth/login', {
        body: { email: member.email, password: member.password },
        headers: fromIp(uniqueIp()),
      });
      expect(password.status).to.equal(403);
      expect(password.headers.get('x-error-code')).to.equal('sso_required');
      const ownerWithout = await api('POST', '/auth/login', {
        body: { email: org.email, password: org.password },
        headers: fromIp(uniqueIp()),
      });
      expect(ownerWithout.status).to.equal(403);
      await enableMfa(org);
      const ownerWith = await api('POST', '/auth/login', {
        body: { email: org.email, password: org.password },
        headers: fromIp(uniqueIp()),
      });
      expect(ownerWith.status).to.equal(200);
      expect(ownerWith.body.mfa_required).to.equal(true);
      const wrong = await api('POST', '/auth/login', {
        body: { email: member.email, password: 'not-the-password' },
        headers: fromIp(uniqueIp()),
      });
      expect(wrong.status, 'a wrong password learns nothing about SSO').to.equal(401);
    });
  });

  describe('ID tokens a relying party must refuse', () => {
    let rogueOwner: TestUser;
    let rogueView: SsoView;
    let rogue: RogueProvider;
    before(async () => {
      rogueOwner = await signUp();
      rogueView = await configure(rogueOwner);
      rogue = await startRogueProvider({
        redirectUri: rogueView.redirect_uri,
        sub: `rogue-${randomBytes(4).toString('hex')}`,
        account: { email: `rogue-${randomBytes(4).toString('hex')}@example.test`, email_verified: true, name: 'Rogue' },
      });
      const res = await api('PUT', '/settings/sso', { token: rogueOwner.token, body: settingsBody(rogue), headers: fromIp(rogueOwner.ip) });
      expect(res.status, res.text).to.equal(200);
    });
    after(async () => rogue?.close());

    it('signs in with a sound token (the control)', async () => {
      rogue.defect = 'none';
      const { res } = await signInThrough(rogue, rogueView, 'ignored');
      expect(res.status, res.text).to.equal(200);
    });

    for (const defect of ['aud', 'iss', 'expired', 'nonce', 'unknown-key'] as const) {
      it(`refuses a token with a wrong ${defect} with 401 and a detail`, async () => {
        rogue.defect = defect;
        const { res } = await signInThrough(rogue, rogueView, 'ignored');
        expect(res.status, res.text).to.equal(401);
        expect(res.headers.get('x-error-code')).to.equal('sso_sign_in_failed');
        expect(res.body.detail)
          .to.be.a('string')
          .and.match(/refused/);
        expect(res.body.access_token).to.equal(undefined);
      });
    }
  });
});

/** A member of `owner`'s organization with a password, through an invitation. */
const signUpMember = (owner: TestUser) => addMember(owner, 'member');
