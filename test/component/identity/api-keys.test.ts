import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, signUp } from '../../support/auth';
import { ApiKey } from '../../../models/api-key';
import { sha256Hex } from '../../../platform/security/crypto';

interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  role: string;
  key: string;
  created_at: string;
  last_used_at: string | null;
}

describe('API keys', () => {
  it('are shown once, stored hashed, act for the organization and record their last use', async () => {
    const owner = await signUp();
    const created = await api<CreatedKey>('POST', '/settings/api-keys', { token: owner.token, body: { name: 'CI' } });
    expect(created.status).to.equal(201);
    expect(created.body.key).to.match(/^clk_[A-Za-z0-9]{40}$/);
    expect(created.body).to.include({ name: 'CI', role: 'member', last_used_at: null });
    expect(created.body.key.startsWith(created.body.prefix)).to.equal(true);
    const stored = await ApiKey.findById(created.body.id).lean();
    expect(stored?.key_hash).to.equal(sha256Hex(created.body.key));
    expect(JSON.stringify(stored)).to.not.contain(created.body.key);

    const list = await api<{ api_keys: Record<string, unknown>[] }>('GET', '/settings/api-keys', { token: owner.token });
    expect(list.body.api_keys).to.have.length(1);
    expect(list.body.api_keys[0]).to.not.have.property('key');
    expect(list.body.api_keys[0]).to.not.have.property('key_hash');

    const used = await api<{ members: unknown[] }>('GET', '/team/members', { token: created.body.key });
    expect(used.status).to.equal(200);
    expect(used.body.members).to.have.length(1);
    // A member-role key may not manage the team.
    expect(
      (await api('POST', '/team/invite', { token: created.body.key, body: { email: 'k@example.test', role: 'viewer' } })).status,
    ).to.equal(403);
    const after = await api<{ api_keys: { last_used_at: string | null }[] }>('GET', '/settings/api-keys', { token: owner.token });
    expect(after.body.api_keys[0]!.last_used_at).to.be.a('string');
  });

  it('are made by owners and admins only, never above the creator, and revoked at once', async () => {
    const owner = await signUp();
    const admin = await addMember(owner, 'admin');
    const member = await addMember(owner, 'member');
    expect((await api('POST', '/settings/api-keys', { token: member.token, body: { name: 'x' } })).status).to.equal(403);
    expect((await api('POST', '/settings/api-keys', { token: admin.token, body: { name: 'x', role: 'owner' } })).status).to.equal(403);
    expect((await api('POST', '/settings/api-keys', { token: admin.token, body: { name: '' } })).status).to.equal(400);
    const key = await api<CreatedKey>('POST', '/settings/api-keys', { token: admin.token, body: { name: 'ops', role: 'admin' } });
    expect(key.status).to.equal(201);
    expect((await api('GET', '/settings/api-keys', { token: key.body.key })).status).to.equal(200);

    // Demoting the creator lowers the key too.
    await api('PUT', `/team/members/${admin.user.id}/role`, { token: owner.token, body: { role: 'member' } });
    expect((await api('GET', '/settings/api-keys', { token: key.body.key })).status).to.equal(403);

    const other = await signUp();
    expect((await api('DELETE', `/settings/api-keys/${key.body.id}`, { token: other.token })).status).to.equal(404);
    expect((await api('DELETE', `/settings/api-keys/${key.body.id}`, { token: owner.token })).status).to.equal(204);
    expect((await api('GET', '/team/members', { token: key.body.key })).status).to.equal(401);
    expect((await api('GET', '/team/members', { token: 'clk_' + 'A'.repeat(40) })).status).to.equal(401);
  });
});
