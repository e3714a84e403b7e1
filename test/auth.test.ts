import { expect } from 'chai';
import { api } from './support/http';
import { addMember, fromIp, signUp, uniqueIp, type LoginBody } from './support/auth';

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
