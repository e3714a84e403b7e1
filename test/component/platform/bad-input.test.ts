import { expect } from 'chai';
import { api, type ApiResponse } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';

const NUL = '\u0000';

/** A 4xx answer that is `{ detail }` and says what was wrong. */
function expectRefused(res: ApiResponse, status: number, detail: RegExp, label: string) {
  expect(res.status, `${label}: ${res.text}`).to.equal(status);
  expect(Object.keys(res.body), label).to.deep.equal(['detail']);
  expect(res.body.detail, label).to.match(detail);
}

describe('Bad input never answers 500', () => {
  let owner: TestUser;
  let contractId: string;

  before(async () => {
    owner = await signUp();
    const contract = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: {
        title: 'MSA',
        type: 'service_agreement',
        counterparty: 'Acme',
        content: 'The supplier provides services. Payment within 30 days.',
      },
    });
    expect(contract.status).to.equal(201);
    contractId = contract.body.id;
  });

  it('refuses a NUL character in a JSON string, authenticated or not, with 400 naming the field', async () => {
    const signature = await api<{ signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contractId, signers: [{ name: 'Alice Signer', email: 'alice@example.test' }] },
    });
    expect(signature.status, signature.text).to.equal(201);
    const signerToken = signature.body.signers[0]!.signing_url.split('/').pop()!;

    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/contracts', { title: `a${NUL}b`, type: 'nda', counterparty: 'Acme' }, 'title'],
      ['PUT', `/contracts/${contractId}`, { title: `a${NUL}b` }, 'title'],
      ['POST', '/vendors', { name: `a${NUL}b` }, 'name'],
      ['POST', '/chat/send', { message: `a${NUL}b`, stream: false }, 'message'],
      ['POST', '/settings/api-keys', { name: `a${NUL}b` }, 'name'],
      ['PUT', '/settings/organization', { name: `a${NUL}b` }, 'name'],
      ['POST', '/signatures', { contract_id: contractId, signers: [{ name: `a${NUL}`, email: 'bob@example.test' }] }, 'signers.0.name'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await api(method, path, { token: owner.token, body });
      expectRefused(res, 400, new RegExp(`^${field.replace('.', '\\.')}: must not contain a NUL character$`), `${method} ${path}`);
    }
    // Unauthenticated: the signer's link, with a real token.
    const signed = await api('POST', `/signatures/sign/${signerToken}`, { body: { signature_text: `Alice${NUL}` } });
    expectRefused(signed, 400, /^signature_text: must not contain a NUL character$/, 'POST /signatures/sign/:token');
    const key = await api('POST', '/contracts', {
      token: owner.token,
      body: { title: 'x', type: 'nda', counterparty: 'Acme', [`k${NUL}`]: 1 },
    });
    expectRefused(key, 400, /NUL character/, 'a NUL in a key');
    // Nothing was written: the signer can still sign, the contract kept its title.
    expect((await api<{ title: string }>('GET', `/contracts/${contractId}`, { token: owner.token })).body.title).to.equal('MSA');
    expect((await api('POST', `/signatures/sign/${signerToken}`, { body: { signature_text: 'Alice Signer' } })).status).to.equal(200);
  });

  it('refuses a NUL character in a query filter with 400 naming the parameter', async () => {
    for (const path of [
      '/contracts?search=%00',
      '/vendors?search=a%00b',
      '/compliance/tasks?regulation_type=%00',
      '/documents?search=%00',
    ]) {
      const res = await api('GET', path, { token: owner.token });
      const name = path.split('?')[1]!.split('=')[0]!;
      expectRefused(res, 400, new RegExp(`^${name}: must not contain a NUL character$`), path);
    }
  });

  it('refuses a path that is not valid percent-encoding with 400', async () => {
    for (const [path, token] of [
      ['/contracts/%E0%A4%A', owner.token],
      ['/signatures/sign/%ZZ', undefined],
      ['/signatures/sign/%C0%80/decline', undefined],
    ] as const) {
      const res = await api(path.endsWith('decline') ? 'POST' : 'GET', path, {
        token,
        body: path.endsWith('decline') ? { reason: 'no' } : undefined,
      });
      expectRefused(res, 400, /^The request path is not valid percent-encoded UTF-8$/, path);
    }
  });

  it('tells a JSON body that is not an object that it must be a JSON object, and a missing one too', async () => {
    for (const rawBody of ['null', '"abc"', '[]', '42', 'true']) {
      const res = await api('POST', '/contracts', { token: owner.token, rawBody });
      expectRefused(res, 400, /^Request body must be a JSON object$/, rawBody);
    }
    expectRefused(await api('POST', '/auth/login', { rawBody: 'null' }), 400, /^Request body must be a JSON object$/, 'login null');
    expectRefused(
      await api('POST', '/contracts', { token: owner.token, rawBody: '{"title": ' }),
      400,
      /^Request body is not valid JSON$/,
      'broken JSON',
    );
    // The scan's schema requires a body (all of its fields have defaults, so `{}` is enough).
    expectRefused(
      await api('POST', '/compliance/scan', { token: owner.token }),
      400,
      /^Request body must be a JSON object$/,
      'scan without a body',
    );
    expect((await api('POST', '/compliance/scan', { token: owner.token, body: {} })).status).to.equal(202);
  });

  it('refuses a body nested deeper than 32 levels with 400, also under an Idempotency-Key', async () => {
    const deep = `{"title":"x","type":"nda","counterparty":"y","z":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    for (const headers of [{}, { 'Idempotency-Key': 'deep-body' }] as Array<Record<string, string>>) {
      const res = await api('POST', '/contracts', { token: owner.token, rawBody: deep, headers });
      expectRefused(res, 400, /^Request body is nested more than 32 levels deep$/, JSON.stringify(headers));
    }
  });

  it('refuses a form with too many fields with 413, not 500 (found by Schemathesis)', async () => {
    const fields = new URLSearchParams(Array.from({ length: 11 }, (_, i): [string, string] => [`f${i}`, 'x'])).toString();
    const res = await fetch(`${testEnv().hostUrl}/sign/any-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
    });
    expect(res.status).to.equal(413);
    expect(await res.text()).to.include('too many fields');
  });

  it('answers an undeclared method on a known path with 405 and Allow, and OPTIONS with Allow', async () => {
    const cases: Array<[string, string, string]> = [
      ['PATCH', '/contracts', 'GET, POST, HEAD, OPTIONS'],
      ['DELETE', '/contracts', 'GET, POST, HEAD, OPTIONS'],
      ['POST', `/contracts/${contractId}`, 'GET, PUT, DELETE, HEAD, OPTIONS'],
      ['GET', '/auth/login', 'POST, OPTIONS'],
      ['DELETE', '/signatures/sign/abc', 'GET, POST, HEAD, OPTIONS'],
      ['PUT', '/Contracts/', 'GET, POST, HEAD, OPTIONS'],
      // A concrete path is not the template beside it (Schemathesis: Allow listed /webhooks/{id}'s DELETE here).
      ['DELETE', '/webhooks/deliveries', 'GET, HEAD, OPTIONS'],
      ['GET', '/documents/upload', 'POST, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await api(method, path, { token: owner.token });
      expectRefused(res, 405, new RegExp(`^${method} is not allowed on this path; allowed: [A-Z, ]+$`), `${method} ${path}`);
      expect(res.headers.get('allow')!.split(', '), `${method} ${path}`).to.have.members(allow.split(', '));
      expect(res.body.detail).to.include(res.headers.get('allow'));
    }
    // Without credentials too: which methods a path has is public (the OpenAPI document says it).
    expect((await api('PATCH', '/contracts')).status).to.equal(405);
    const health = await fetch(`${testEnv().hostUrl}/health`, { method: 'POST' });
    expect(health.status).to.equal(405);
    expect(health.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    const options = await api('OPTIONS', `/contracts/${contractId}`);
    expect(options.status).to.equal(204);
    expect(options.headers.get('allow')!.split(', ')).to.have.members(['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']);
    // Unknown paths stay 404.
    expect((await api('PATCH', '/no-such-thing', { token: owner.token })).status).to.equal(404);
  });
});
