/**
 * SCIM 2.0 through HTTP, with the PATCH bodies Microsoft Entra ID and Okta document sending:
 * Entra's capitalised ops, "False" strings and `emails[type eq "work"].value` paths, Okta's
 * path-less `{active: false}`, and both providers' group membership changes.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { api, type ApiResponse } from '../../support/http';
import { addMember, fromIp, signUp, type TestUser } from '../../support/auth';

type Scim = Record<string, unknown> & { id: string };
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

async function scimToken(owner: TestUser): Promise<string> {
  const res = await api<{ token: string }>('POST', '/settings/scim/token', { token: owner.token, headers: fromIp(owner.ip) });
  expect(res.status, res.text).to.equal(201);
  return res.body.token;
}

const scim = <T = Scim>(token: string, method: string, path: string, body?: unknown): Promise<ApiResponse<T>> =>
  api<T>(method, `/scim/v2${path}`, { token, body, headers: { 'content-type': 'application/scim+json' } });

const userName = () => `jane-${randomBytes(4).toString('hex')}@example.test`;

async function createUser(token: string, extra: Record<string, unknown> = {}) {
  const name = userName();
  const res = await scim(token, 'POST', '/Users', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: name,
    name: { givenName: 'Jane', familyName: 'Doe' },
    emails: [{ primary: true, type: 'work', value: name }],
    active: true,
    ...extra,
  });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

describe('SCIM 2.0', () => {
  let owner: TestUser;
  let token: string;
  before(async () => {
    owner = await signUp();
    token = await scimToken(owner);
  });

  it('answers discovery documents as application/scim+json, and 401 in the SCIM error schema without the token', async () => {
    const config = await scim(token, 'GET', '/ServiceProviderConfig');
    expect(config.status).to.equal(200);
    expect(config.headers.get('content-type')).to.match(/^application\/scim\+json/);
    expect(config.body).to.deep.include({ patch: { supported: true }, filter: { supported: true, maxResults: 200 } });
    const types = await scim<{ Resources: Array<{ id: string }> }>(token, 'GET', '/ResourceTypes');
    expect(types.body.Resources.map((r) => r.id)).to.deep.equal(['User', 'Group']);
    const schemas = await scim<{ Resources: Array<{ id: string }> }>(token, 'GET', '/Schemas');
    expect(schemas.body.Resources.map((r) => r.id)).to.include('urn:ietf:params:scim:schemas:core:2.0:User');
    for (const bad of [undefined, owner.token, 'scim_unknown']) {
      const res = await api('GET', '/scim/v2/Users', bad ? { token: bad } : {});
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ status: '401' });
      expect(res.body.schemas).to.deep.equal(['urn:ietf:params:scim:api:messages:2.0:Error']);
    }
  });

  it('shows the token once: the settings show only its prefix, and a new token replaces the old at once', async () => {
    const org = await signUp();
    const first = await scimToken(org);
    const view = await api('GET', '/settings/scim', { token: org.token });
    expect(view.body).to.include({ configured: true, prefix: first.slice(0, 9) });
    expect(view.text).to.not.include(first);
    const member = await addMember(org, 'member');
    expect((await api('POST', '/settings/scim/token', { token: member.token })).status).to.equal(403);
    const second = await scimToken(org);
    expect((await scim(first, 'GET', '/Users')).status).to.equal(401);
    expect((await scim(second, 'GET', '/Users')).status).to.equal(200);
  });

  it('creates, finds by userName filter, pages, reads and replaces users; 409 uniqueness for a taken userName', async () => {
    const made = await createUser(token);
    expect(made).to.deep.include({ userName: made.userName, active: true, displayName: 'Jane Doe' });
    expect((made.meta as { location: string }).location).to.match(new RegExp(`/scim/v2/Users/${made.id}$`));
    const found = await scim<{ totalResults: number; Resources: Scim[] }>(
      token,
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "${String(made.userName).toUpperCase()}"`)}`,
    );
    expect(found.body.totalResults).to.equal(1);
    expect(found.body.Resources[0]!.id).to.equal(made.id);
    await createUser(token);
    const page = await scim<{ totalResults: number; startIndex: number; itemsPerPage: number; Resources: Scim[] }>(
      token,
      'GET',
      '/Users?startIndex=2&count=1',
    );
    expect(page.body).to.include({ startIndex: 2, itemsPerPage: 1 });
    expect(page.body.totalResults).to.be.at.least(3);
    const dup = await scim(token, 'POST', '/Users', { userName: made.userName, emails: [{ value: `other-${made.userName as string}` }] });
    expect(dup.status).to.equal(409);
    expect(dup.body).to.include({ scimType: 'uniqueness', status: '409' });
    const badFilter = await scim(token, 'GET', `/Users?filter=${encodeURIComponent('userName eq')}`);
    expect(badFilter.status).to.equal(400);
    expect(badFilter.body).to.include({ scimType: 'invalidFilter' });
    const replaced = await scim(token, 'PUT', `/Users/${made.id}`, {
      userName: made.userName,
      name: { givenName: 'Janet', familyName: 'Doe' },
      displayName: 'Janet Doe',
      emails: [{ value: made.userName, primary: true }],
      active: true,
    });
    expect(replaced.status, replaced.text).to.equal(200);
    expect(replaced.body).to.deep.include({
      displayName: 'Janet Doe',
      name: { formatted: 'Janet Doe', givenName: 'Janet', familyName: 'Doe' },
    });
    expect((await scim(token, 'GET', `/Users/${made.id}`)).body.displayName).to.equal('Janet Doe');
  });

  it('applies Entra ID\'s PATCH bodies: capitalised ops, emails[type eq "work"].value, and "False"', async () => {
    const made = await createUser(token);
    const newEmail = userName();
    // Microsoft's "update user [multi-valued properties]" and "[single-valued properties]" requests.
    const res = await scim(token, 'PATCH', `/Users/${made.id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: newEmail },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        { op: 'Replace', path: 'title', value: 'tester' },
      ],
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.emails).to.deep.equal([{ value: newEmail, type: 'work', primary: true }]);
    expect((res.body.name as { familyName: string }).familyName).to.equal('updatedFamilyName');
    const add = await scim(token, 'PATCH', `/Users/${made.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'emails[type eq "work"].value', value: newEmail }],
    });
    expect(add.status, add.text).to.equal(200);
    // Microsoft's "disable user" request, as Entra sends the boolean.
    const off = await scim(token, 'PATCH', `/Users/${made.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.status, off.text).to.equal(200);
    expect(off.body.active).to.equal(false);
    const on = await scim(token, 'PATCH', `/Users/${made.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(on.body.active).to.equal(true);
  });

  it("applies Okta's PATCH bodies: path-less {active: false}, group rename and members by value filter", async () => {
    const made = await createUser(token);
    // Okta's "deactivate a user" request.
    const off = await scim(token, 'PATCH', `/Users/${made.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status, off.text).to.equal(200);
    expect(off.body.active).to.equal(false);
    const group = await scim(token, 'POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: `Team ${made.id}`,
      members: [],
    });
    expect(group.status, group.text).to.equal(201);
    const renamed = await scim(token, 'PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { id: group.body.id, displayName: `Renamed ${made.id}` } }],
    });
    expect(renamed.body.displayName).to.equal(`Renamed ${made.id}`);
    const added = await scim(token, 'PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: made.id, display: made.userName }] }],
    });
    expect((added.body.members as Scim[]).map((m) => m.value)).to.deep.equal([made.id]);
    const removed = await scim(token, 'PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${made.id}"]` }],
    });
    expect(removed.body.members).to.deep.equal([]);
  });

  it('maps group membership to roles through group_role_map, Entra adding and removing members by value list', async () => {
    const org = await signUp();
    const orgToken = await scimToken(org);
    const settings = await api('PUT', '/settings/sso', {
      token: org.token,
      headers: fromIp(org.ip),
      body: {
        enabled: false,
        issuer: 'https://idp.example.com',
        client_id: 'c',
        allowed_domains: ['example.test'],
        default_role: 'viewer',
        group_role_map: { 'legal-admins': 'admin' },
      },
    });
    expect(settings.status, settings.text).to.equal(200);
    const made = await createUser(orgToken);
    expect(made.roles).to.deep.equal([{ value: 'viewer', primary: true }]);
    const group = await scim(orgToken, 'POST', '/Groups', { displayName: 'legal-admins' });
    const body = (op: string) => ({ schemas: [PATCH], Operations: [{ op, path: 'members', value: [{ $ref: null, value: made.id }] }] });
    expect((await scim(orgToken, 'PATCH', `/Groups/${group.body.id}`, body('Add'))).status).to.equal(200);
    const admin = await scim(orgToken, 'GET', `/Users/${made.id}`);
    expect(admin.body.roles).to.deep.equal([{ value: 'admin', primary: true }]);
    expect((admin.body.groups as Scim[]).map((g) => g.display)).to.deep.equal(['legal-admins']);
    expect((await scim(orgToken, 'PATCH', `/Groups/${group.body.id}`, body('Remove'))).status).to.equal(200);
    expect((await scim(orgToken, 'GET', `/Users/${made.id}`)).body.roles).to.deep.equal([{ value: 'viewer', primary: true }]);
    const dup = await scim(orgToken, 'POST', '/Groups', { displayName: 'legal-admins' });
    expect(dup.body).to.include({ status: '409', scimType: 'uniqueness' });
  });

  it('refuses to deactivate or demote the last owner: 409 mutability', async () => {
    const org = await signUp();
    const orgToken = await scimToken(org);
    const off = await scim(orgToken, 'PATCH', `/Users/${org.user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status, off.text).to.equal(409);
    expect(off.body).to.include({ scimType: 'mutability', status: '409' });
    const demote = await scim(orgToken, 'PATCH', `/Users/${org.user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'roles', value: [{ value: 'admin', primary: true }] }],
    });
    expect(demote.status, demote.text).to.equal(409);
    expect(demote.body).to.include({ scimType: 'mutability' });
    const gone = await scim(orgToken, 'DELETE', `/Users/${org.user.id}`);
    expect(gone.status).to.equal(409);
    const me = await api('GET', '/team/members', { token: org.token });
    expect(me.status).to.equal(200);
  });

  it("never reaches another organization's users: 404 for read, change and delete", async () => {
    const other = await signUp();
    const otherToken = await scimToken(other);
    const theirs = await createUser(otherToken);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { userName: 'x@example.test' }],
      ['PATCH', { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] }],
      ['DELETE', undefined],
    ] as const) {
      const res = await scim(token, method, `/Users/${theirs.id}`, body);
      expect(res.status, `${method} ${res.text}`).to.equal(404);
    }
    const listed = await scim<{ Resources: Scim[] }>(
      token,
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "${theirs.userName as string}"`)}`,
    );
    expect(listed.body.Resources).to.deep.equal([]);
    expect((await scim(otherToken, 'GET', `/Users/${theirs.id}`)).body.active).to.equal(true);
  });

  it('a deactivated member cannot use their token or sign in; deleting removes them', async () => {
    const member = await addMember(owner, 'member');
    const off = await scim(token, 'PATCH', `/Users/${member.user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status, off.text).to.equal(200);
    expect((await api('GET', '/team/members', { token: member.token })).status).to.equal(401);
    const login = await api('POST', '/auth/login', {
      body: { email: member.email, password: member.password },
      headers: fromIp(member.ip),
    });
    expect(login.status).to.equal(401);
    expect((await scim(token, 'DELETE', `/Users/${member.user.id}`)).status).to.equal(204);
    expect((await scim(token, 'GET', `/Users/${member.user.id}`)).status).to.equal(404);
  });
});
