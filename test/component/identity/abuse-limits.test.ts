/**
 * Limits an attacker could once multiply: API keys (each had a bucket of its own, and there
 * was no cap) and IPv6 addresses (each /128 had its own allowance). Issue 29.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { api, type ApiResponse } from '../../support/http';
import { testEnv, withSecondApi } from '../../support/env';
import { fromIp, signUp, uniqueIp } from '../../support/auth';

/** A fresh random /64 and addresses inside it. */
function ipv6Net() {
  const hex = () => randomBytes(2).toString('hex');
  const prefix = `2001:db8:${hex()}:${hex()}`;
  return { address: () => `${prefix}:${hex()}:${hex()}:${hex()}:${hex()}` };
}

describe('abuse limits', () => {
  describe('API keys', () => {
    it('holds at most API_KEYS_PER_ORG keys per organization: the next answers 409 api_key_limit_reached', async () => {
      const owner = await signUp();
      const limit = testEnv().config.API_KEYS_PER_ORG;
      const mint = (name: string) => api<{ id: string }>('POST', '/settings/api-keys', { token: owner.token, body: { name } });
      const made = [];
      for (let i = 0; i < limit; i++) made.push(await mint(`k${i}`));
      expect(made.map((r) => r.status)).to.deep.equal(Array(limit).fill(201));
      const over = await mint('one too many');
      expect(over.status).to.equal(409);
      expect(over.headers.get('x-error-code')).to.equal('api_key_limit_reached');
      expect(over.body).to.deep.equal({
        detail: `This organization already has ${limit} API keys, the most allowed; revoke one first`,
      });
      // Another organization is not affected, and revoking one makes room.
      expect((await api('POST', '/settings/api-keys', { token: (await signUp()).token, body: { name: 'x' } })).status).to.equal(201);
      expect((await api('DELETE', `/settings/api-keys/${made[0]!.body.id}`, { token: owner.token })).status).to.equal(204);
      expect((await mint('in its place')).status).to.equal(201);
    });

    it('share one organization-wide ceiling with its users, exactly across two API instances: minting keys buys no throughput', async () => {
      const owner = await signUp();
      const keys = await Promise.all(
        ['a', 'b'].map(async (name) => {
          const res = await api<{ key: string }>('POST', '/settings/api-keys', { token: owner.token, body: { name } });
          expect(res.status).to.equal(201);
          return res.body.key;
        }),
      );
      const ceiling = 100;
      await withSecondApi({ RATE_LIMIT_ORGANIZATION_PER_MINUTE: ceiling }, (first) =>
        withSecondApi({ RATE_LIMIT_ORGANIZATION_PER_MINUTE: ceiling }, async (second) => {
          // The owner and each key stay within their own 60 a minute: 55 + 60 + 60 requests.
          const callers = [
            ...Array<string>(55).fill(owner.token),
            ...Array<string>(60).fill(keys[0]!),
            ...Array<string>(60).fill(keys[1]!),
          ];
          const answers: ApiResponse[] = [];
          for (let i = 0; i < callers.length; i += 25)
            answers.push(
              ...(await Promise.all(
                callers.slice(i, i + 25).map((token, j) => api('GET', '/team/members', { token, base: (i + j) % 2 ? first : second })),
              )),
            );
          const passed = answers.filter((r) => r.status === 200).length;
          const refused = answers.filter((r) => r.status === 429);
          // The two key mints above took two of the organization's requests this minute.
          expect(passed).to.equal(ceiling - 2);
          expect(refused).to.have.length(callers.length - passed);
          expect(refused.every((r) => r.headers.get('x-error-code') === 'organization_rate_limited')).to.equal(true);
          expect(Number(refused[0]!.headers.get('retry-after'))).to.be.within(1, 60);
          expect(refused[0]!.headers.get('x-ratelimit-limit')).to.equal(String(ceiling));
          expect(refused[0]!.body.detail).to.match(/^This organization's users and API keys together made 100 requests this minute/);
          // Another organization has its own ceiling.
          expect((await api('GET', '/team/members', { token: (await signUp()).token, base: first })).status).to.equal(200);
        }),
      );
    });
  });

  describe('IPv6 clients', () => {
    it('count on their /64 for reset requests, registration and login; another /64 is apart', async () => {
      const net = ipv6Net();
      const reset = [];
      for (let i = 0; i < 4; i++)
        reset.push(
          (await api('POST', '/auth/password/reset-request', { body: { email: 'a@example.test' }, headers: fromIp(net.address()) })).status,
        );
      expect(reset).to.deep.equal([202, 202, 202, 429]);
      expect(
        (await api('POST', '/auth/password/reset-request', { body: { email: 'a@example.test' }, headers: fromIp(ipv6Net().address()) }))
          .status,
      ).to.equal(202);

      const register = [];
      for (let i = 0; i < 4; i++)
        register.push(
          (
            await api('POST', '/auth/register', {
              body: { email: `v6-${randomBytes(4).toString('hex')}@example.test`, password: 'long-enough-1', full_name: 'Six' },
              headers: fromIp(net.address()),
            })
          ).status,
        );
      expect(register).to.deep.equal([201, 201, 201, 429]);

      const owner = await signUp();
      const login = [];
      for (let i = 0; i < 6; i++)
        login.push(
          (await api('POST', '/auth/login', { body: { email: owner.email, password: owner.password }, headers: fromIp(net.address()) }))
            .status,
        );
      expect(login).to.deep.equal([200, 200, 200, 200, 200, 429]);
    });

    it('count an IPv4-mapped IPv6 address as its IPv4 address', async () => {
      const ip = uniqueIp();
      const reset = [];
      for (const from of [ip, `::ffff:${ip}`, ip, `::ffff:${ip}`])
        reset.push(
          (await api('POST', '/auth/password/reset-request', { body: { email: 'b@example.test' }, headers: fromIp(from) })).status,
        );
      expect(reset).to.deep.equal([202, 202, 202, 429]);
    });
  });
});
