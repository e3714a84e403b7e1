import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { api } from '../../support/http';
import { signUp } from '../../support/auth';
import { repoRoot } from '../../support/processes';

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The codes the code can throw: each feature's `defineErrors` keys and statuses, and codes named at a throw. */
function thrownCodes(): Map<string, number | null> {
  const codes = new Map<string, number | null>();
  for (const file of ['services', 'api', 'platform'].flatMap((d) => sources(path.join(repoRoot, d)))) {
    // Code only: a comment may show an example code.
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const block of text.matchAll(/defineErrors\(\{([\s\S]*?)\n\}\)/g))
      for (const [, code, status] of block[1]!.matchAll(/^\s*(\w+): \{ status: (\d+)/gm)) codes.set(code!, Number(status));
    for (const [, code] of text.matchAll(/\w+Errors\.(\w+)\(/g)) if (!codes.has(code!)) codes.set(code!, null);
    for (const [, code] of text.matchAll(/new AppError\([^;]*?, '([a-z_]+)'\)/g)) if (!codes.has(code!)) codes.set(code!, null);
  }
  return codes;
}

describe('error codes', () => {
  it('documents every code the services throw, with its status, in the OpenAPI ErrorCode schema', async () => {
    const doc = await api<{
      components: { schemas: { ErrorCode: { oneOf: Array<{ const: string; 'x-status': number; description: string }> } } };
    }>('GET', '/openapi.json');
    const documented = new Map(doc.body.components.schemas.ErrorCode.oneOf.map((c) => [c.const, c]));
    const thrown = thrownCodes();
    // The domain codes of several features, not only the generic ones.
    expect([...thrown.keys()]).to.include.members(['delivery_not_retryable', 'webhook_subscription_limit']);
    for (const [code, status] of thrown) {
      const entry = documented.get(code);
      expect(entry, `${code} is thrown but not in the ErrorCode schema`).to.not.equal(undefined);
      if (status !== null) expect(entry!['x-status'], code).to.equal(status);
      expect(entry!.description, code).to.match(/^\d{3}: \S/);
    }
  });

  it('answers a domain code where a use case refuses', async () => {
    const owner = await signUp();
    const res = await api('POST', '/webhooks/deliveries/0123456789abcdef01234567/retry', { token: owner.token });
    expect(res.status).to.equal(404);
    expect(res.headers.get('x-error-code')).to.equal('not_found');
    const refused = await api('POST', '/webhooks/subscribe', {
      token: owner.token,
      body: { url: 'ftp://example.com/hook', events: ['contract.created'], secret: 'a-long-enough-secret' },
    });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.headers.get('x-error-code')).to.equal('webhook_url_refused');
  });
});
