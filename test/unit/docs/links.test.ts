/**
 * The documentation's links and the repository paths it names must exist: a guide that points
 * at a moved file or a missing heading misleads the newcomer it is written for.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../../..');

function markdownFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'SECURITY.md', 'bench/README.md', 'eval/README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) files.push(rel);
    }
  };
  walk('docs');
  return files.filter((f) => existsSync(path.join(ROOT, f)));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Text outside fenced code blocks, where links and paths are claims. */
function prose(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
}

const TOP = ['api', 'services', 'platform', 'models', 'workflows', 'activities', 'workers', 'test', 'bench', 'eval', 'scripts', 'docs'];

describe('documentation links', () => {
  const files = markdownFiles();

  it('reads the README and the guides', () => {
    expect(files).to.include.members(['README.md', 'docs/architecture.md', 'docs/api/README.md', 'docs/operations/README.md']);
  });

  it('every relative link reaches a file and, with an anchor, a heading of it', () => {
    const dead: string[] = [];
    for (const file of files) {
      for (const m of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [rel, anchor] = target.split('#') as [string, string | undefined];
        const resolved = rel ? path.normalize(path.join(path.dirname(file), rel)) : file;
        if (!existsSync(path.join(ROOT, resolved))) dead.push(`${file}: ${target} (no file ${resolved})`);
        else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
          dead.push(`${file}: ${target} (no heading #${anchor})`);
      }
    }
    expect(dead, dead.join('\n')).to.deep.equal([]);
  });

  it('every repository path named in code spans exists', () => {
    const missing: string[] = [];
    for (const file of files.filter((f) => !f.startsWith('docs/reference/') && f !== 'CHANGELOG.md' && f !== 'bench/history.md')) {
      for (const m of prose(file).matchAll(/`([^`\s]+)`/g)) {
        const named = m[1]!.replace(/[),.:;]+$/, '');
        const first = named.split('/')[0]!;
        if (!TOP.includes(first) || !named.includes('/') || /[<>*{}$]|\.\.\./.test(named)) continue;
        if (!/\.(ts|md|sh|json|sql|py|png)$/.test(named) && !named.endsWith('/')) continue;
        if (!existsSync(path.join(ROOT, named))) missing.push(`${file}: ${named}`);
      }
    }
    expect(missing, missing.join('\n')).to.deep.equal([]);
  });
});
