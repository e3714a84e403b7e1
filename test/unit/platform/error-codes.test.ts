/**
 * The error catalog (platform/errors.ts) as clients read it: every code the code can throw is
 * in the OpenAPI `ErrorCode` schema with its status, and an error's status is its code's. The
 * document is built in-process from the registered operations: no engine is needed.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
// Loading the app registers every operation and every feature's codes.
import '../../../api/app';
import { openApiDocument } from '../../../api/http/openapi';
import { AppError, defineErrors, errorCatalog, isAppError, notFound, type DomainCode } from '../../../platform/errors';
import { searchErrors } from '../../../services/search/errors';
import { idempotencyErrors } from '../../../services/idempotency/errors';

const ROOT = path.resolve(__dirname, '../../..');

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The codes the code can throw: each feature's `defineErrors` keys and statuses, and codes named at a throw. */
function thrownCodes(): Map<string, number | null> {
  const codes = new Map<string, number | null>();
  for (const file of ['services', 'api', 'platform'].flatMap((d) => sources(path.join(ROOT, d)))) {
    // Code only: a comment may show an example code.
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const block of text.matchAll(/defineErrors\(\{([\s\S]*?)\n\}\)/g))
      for (const [, code, status] of block[1]!.matchAll(/^\s*(\w+): \{\s*status: (\d+)/gm)) codes.set(code!, Number(status));
    for (const [, code] of text.matchAll(/\w+Errors\.(\w+)\(/g)) if (!codes.has(code!)) codes.set(code!, null);
    for (const [, code] of text.matchAll(/new AppError\(\s*'([a-z_]+)'/g)) if (!codes.has(code!)) codes.set(code!, null);
  }
  return codes;
}

describe('error codes', () => {
  it('documents every code the services throw, with its status, in the OpenAPI ErrorCode schema', () => {
    const doc = openApiDocument() as unknown as {
      components: { schemas: { ErrorCode: { oneOf: Array<{ const: string; 'x-status': number; description: string }> } } };
    };
    const documented = new Map(doc.components.schemas.ErrorCode.oneOf.map((c) => [c.const, c]));
    const thrown = thrownCodes();
    // The domain codes of several features, not only the generic ones.
    expect([...thrown.keys()]).to.include.members([
      'delivery_not_retryable',
      'webhook_subscription_limit',
      'search_reindex_running',
      'idempotency_key_reused',
      'payload_too_large',
    ]);
    for (const [code, status] of thrown) {
      const entry = documented.get(code);
      expect(entry, `${code} is thrown but not in the ErrorCode schema`).to.not.equal(undefined);
      if (status !== null) expect(entry!['x-status'], code).to.equal(status);
      expect(entry!.description, code).to.match(/^\d{3}: \S/);
    }
  });

  it('gives an error the status of its code', () => {
    for (const [code, spec] of errorCatalog()) expect(new AppError(code as DomainCode, 'x').status, code).to.equal(spec.status);
    expect(idempotencyErrors.idempotency_key_in_flight('x')).to.include({ status: 409, code: 'idempotency_key_in_flight' });
    expect(notFound('Contract')).to.include({ status: 404, code: 'not_found', detail: 'Contract not found' });
  });

  it('tells errors apart by code, generic or domain', () => {
    const down = searchErrors.search_unavailable('down');
    expect(isAppError(down)).to.equal(true);
    expect(isAppError(down, searchErrors.search_unavailable)).to.equal(true);
    expect(isAppError(down, 'unavailable'), 'same status, another code').to.equal(false);
    expect(isAppError(notFound('x'), 'not_found')).to.equal(true);
    expect(isAppError(new Error('not_found'), 'not_found')).to.equal(false);
  });

  it('refuses a code defined twice with another status', () => {
    expect(() =>
      defineErrors({ search_unavailable: { status: 500, meaning: 'The search engine is unavailable; try again shortly' } }),
    ).to.throw(/defined twice/);
  });
});
