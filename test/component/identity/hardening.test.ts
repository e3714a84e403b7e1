/** The smaller items of issue 29: answers with tokens are not cached, sensitive changes reach the feed, the CSRF cookie follows TLS. */
import { expect } from 'chai';
import { api, type ApiResponse } from '../../support/http';
import { testEnv, withSecondApi } from '../../support/env';
import { addMember, enableMfa, fromIp, nextTotp, signUp, uniqueIp, type LoginBody } from '../../support/auth';
import { uniqueAddress } from '../../support/mailbox';

interface Activity {
  type: string;
  actor: { type: string; id: string | null; name: string | null };
  resource_type: string;
  resource_id: string;
  summary: string;
}

describe('hardening', () => {
  it('sends Cache-Control: no-store with every answer that carries a token', async () => {
    const answers: Array<[string, Pick<ApiResponse, 'status' | 'headers' | 'text'>]> = [];
    const ip = uniqueIp();
    const email = uniqueAddress('cache');
    const registered = await api<LoginBody>('POST', '/auth/register', {
      body: { email, password: 'cache-password-1', full_name: 'Cache' },
      headers: fromIp(ip),
    });
    answers.push(['register', registered]);
    const owner = await signUp();
    const login = await api<LoginBody>('POST', '/auth/login', {
      body: { email: owner.email, password: owner.password },
      headers: fromIp(ip),
    });
    answers.push(['login', login]);
    answers.push(['refresh', await api('POST', '/auth/refresh', { body: { refresh_token: login.body.refresh_token } })]);
    answers.push(['API key', await api('POST', '/settings/api-keys', { token: owner.token, body: { name: 'k' } })]);
    answers.push([
      'invitation',
      await api('POST', '/team/invite', { token: owner.token, body: { email: uniqueAddress('inv'), role: 'viewer' } }),
    ]);
    const contract = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'NDA', type: 'nda', counterparty: 'Initech', content: 'NDA text' },
    });
    answers.push([
      'signature request',
      await api('POST', '/signatures', {
        token: owner.token,
        body: { contract_id: contract.body.id, signers: [{ name: 'S', email: uniqueAddress('sig') }] },
      }),
    ]);
    const { secret } = await enableMfa(owner);
    const challenge = await api<{ mfa_token: string }>('POST', '/auth/login', {
      body: { email: owner.email, password: owner.password },
      headers: fromIp(uniqueIp()),
    });
    answers.push(['MFA challenge', challenge]);
    answers.push([
      'MFA verify',
      await api('POST', '/auth/mfa/verify', {
        body: { mfa_token: challenge.body.mfa_token, code: await nextTotp(secret) },
        headers: fromIp(uniqueIp()),
      }),
    ]);
    answers.push(['an error', await api('GET', '/contracts/0', { token: owner.token })]);
    for (const [what, res] of answers) {
      expect(res.status, `${what}: ${res.text}`).to.be.below(500);
      expect(res.headers.get('cache-control'), what).to.equal('no-store');
    }
  });

  it('writes turning mfa_required off, minting and revoking API keys and role changes to the activity feed', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const put = (mfa_required: boolean) => api('PUT', '/settings/organization', { token: owner.token, body: { mfa_required } });
    expect((await put(true)).status).to.equal(200);
    expect((await put(false)).status).to.equal(200);
    expect((await put(false)).status, 'no change, no entry').to.equal(200);
    const key = await api<{ id: string }>('POST', '/settings/api-keys', {
      token: owner.token,
      body: { name: 'deploy bot', role: 'admin' },
    });
    expect((await api('DELETE', `/settings/api-keys/${key.body.id}`, { token: owner.token })).status).to.equal(204);
    expect((await api('PUT', `/team/members/${member.user.id}/role`, { token: owner.token, body: { role: 'admin' } })).status).to.equal(
      200,
    );

    const feed = await api<{ activities: Activity[] }>('GET', '/analytics/activity?type=team&page_size=100', { token: owner.token });
    const entries = feed.body.activities.filter((a) => a.type !== 'team.member_joined').reverse();
    const actor = { type: 'user', id: owner.user.id, name: 'Test Owner' };
    expect(
      entries.map(({ type, actor: by, resource_type, resource_id, summary }) => ({ type, by, resource_type, resource_id, summary })),
    ).to.deep.equal([
      {
        type: 'team.mfa_required_changed',
        by: actor,
        resource_type: 'organization',
        resource_id: owner.organizationId,
        summary: 'Test Owner required MFA for every member',
      },
      {
        type: 'team.mfa_required_changed',
        by: actor,
        resource_type: 'organization',
        resource_id: owner.organizationId,
        summary: 'Test Owner stopped requiring MFA for every member',
      },
      {
        type: 'team.api_key_created',
        by: actor,
        resource_type: 'api_key',
        resource_id: key.body.id,
        summary: 'Test Owner created the API key "deploy bot" (admin)',
      },
      {
        type: 'team.api_key_revoked',
        by: actor,
        resource_type: 'api_key',
        resource_id: key.body.id,
        summary: 'Test Owner revoked the API key "deploy bot"',
      },
      {
        type: 'team.role_changed',
        by: actor,
        resource_type: 'user',
        resource_id: member.user.id,
        summary: 'Test Owner changed the role of Test member from member to admin',
      },
    ]);
  });

  it('marks the CSRF cookie Secure when the trusted proxy says the request came over TLS', async () => {
    const owner = await signUp();
    const contract = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'NDA', type: 'nda', counterparty: 'Initech', content: 'NDA text' },
    });
    const sig = await api<{ signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contract.body.id, signers: [{ name: 'S', email: uniqueAddress('csrf') }] },
    });
    const page = new URL(sig.body.signers[0]!.signing_url).pathname;
    const cookieOf = async (headers: Record<string, string>) =>
      (await fetch(`${testEnv().hostUrl}${page}`, { headers: { ...fromIp(uniqueIp()), ...headers } })).headers.get('set-cookie') ?? '';
    expect(await cookieOf({ 'x-forwarded-proto': 'https' })).to.match(/^csrf_id=.*; Secure/i);
    expect(await cookieOf({}))
      .to.match(/^csrf_id=/)
      .and.not.match(/Secure/i);
    // Behind a TLS proxy the service does not trust, an https PUBLIC_BASE_URL still says browsers use TLS.
    await withSecondApi({ PUBLIC_BASE_URL: 'https://contracts.example', TRUST_PROXY: false }, async (base) => {
      const res = await fetch(`${base.replace(/\/api\/v1$/, '')}${page}`, { headers: { 'x-forwarded-proto': 'http' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('set-cookie')).to.match(/^csrf_id=.*; Secure/i);
    });
  });
});
