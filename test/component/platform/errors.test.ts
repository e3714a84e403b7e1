import { expect } from 'chai';
import mongoose from 'mongoose';
import { toAppError } from '../../../api/http/errors';
import { api, type ApiResponse } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';

describe('errors', () => {
  it('a store that could not lock in time (FerretDB SQLITE_BUSY) is a 503 with Retry-After, not a 500', () => {
    const busy = new mongoose.mongo.MongoServerError({
      message: '[collection.go:191 sqlite.(*collection).UpdateOne] database is locked (5) (SQLITE_BUSY)',
      code: 1,
    });
    const err = toAppError(busy);
    expect(err?.status).to.equal(503);
    expect(err?.headers).to.deep.equal({ 'Retry-After': '1' });
    expect(err?.detail).to.match(/busy/);
    expect(toAppError(new mongoose.mongo.MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).to.equal(undefined);
  });
});

describe('errors: a stable code beside the detail', () => {
  let owner: TestUser;
  before(async () => {
    owner = await signUp();
  });

  it('answers X-Error-Code with each kind of error, the body staying exactly { detail }', async () => {
    const cases: Array<[Promise<ApiResponse>, number, string]> = [
      [api('GET', '/contracts'), 401, 'unauthenticated'],
      [api('GET', '/contracts/0123456789abcdef01234567', { token: owner.token }), 404, 'not_found'],
      [api('GET', '/no-such-resource', { token: owner.token }), 404, 'no_route'],
      [api('POST', '/contracts', { token: owner.token, body: { title: '' } }), 400, 'validation_failed'],
      [api('POST', '/contracts', { token: owner.token, rawBody: '{"title":' }), 400, 'malformed_json'],
      [api('PATCH', '/contracts', { token: owner.token }), 405, 'method_not_allowed'],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      expect(res.status, res.text).to.equal(status);
      expect(res.headers.get('x-error-code'), res.text).to.equal(code);
      expect(Object.keys(res.body)).to.deep.equal(['detail']);
    }
  });

  it('replays a refused create with its code under the same Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': `refused-${Date.now()}` };
    const body = { title: 'MSA', type: 'service_agreement', counterparty: 'Acme', vendor_id: '0123456789abcdef01234567' };
    const first = await api('POST', '/contracts', { token: owner.token, body, headers });
    expect(first.status, first.text).to.be.within(400, 499);
    const again = await api('POST', '/contracts', { token: owner.token, body, headers });
    expect(again.status).to.equal(first.status);
    expect(again.headers.get('x-error-code')).to.equal(first.headers.get('x-error-code')).and.to.be.a('string');
  });

  it('documents X-Error-Code on every error response of the OpenAPI document', async () => {
    const doc = await api<{
      paths: Record<
        string,
        Record<string, { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }> }>
      >;
    }>('GET', '/openapi.json');
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.body.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, r] of Object.entries(op.responses)) {
          if (Number(status) < 400 || !r.content?.['application/json'] || path === '/health') continue;
          expect(r.headers, `${method} ${path} ${status}`).to.have.property('X-Error-Code');
          checked++;
        }
      }
    }
    expect(checked).to.be.greaterThan(100);
  });
});
