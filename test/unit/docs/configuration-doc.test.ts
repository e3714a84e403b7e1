/** Every variable `platform/config.ts` reads is documented for operators, and nothing else is. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The keys of the configuration schema: the object's properties at its own indentation. */
function configKeys(): string[] {
  const source = read('platform/config.ts');
  const schema = source.slice(source.indexOf('const schema = z'), source.indexOf('.superRefine('));
  return [...schema.matchAll(/^ {4}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
}

describe('the configuration guide', () => {
  const doc = read('docs/operations/configuration.md');
  const documented = new Set([...doc.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1]!));

  it('finds the schema', () => {
    expect(configKeys()).to.include.members(['MONGODB_URI', 'ENCRYPTION_KEY', 'KEY_TERMS_BUDGET_MS']);
  });

  it('documents every variable of platform/config.ts', () => {
    const missing = configKeys().filter((key) => !documented.has(key));
    expect(missing, `missing from docs/operations/configuration.md: ${missing.join(', ')}`).to.deep.equal([]);
  });

  it('documents no variable the service does not read', () => {
    const keys = new Set(configKeys());
    const rows = [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)`(?:, `([A-Z][A-Z0-9_]+)`)? \|/gm)].flatMap((m) => [m[1]!, m[2]].filter(Boolean));
    const unknown = rows.filter((key) => !keys.has(key!));
    expect(unknown, `documented but not read: ${unknown.join(', ')}`).to.deep.equal([]);
  });
});
