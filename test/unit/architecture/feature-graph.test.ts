import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The features (the folders of services/) import one another one way only (issue 40): a
 * feature that needs another sits above it, and nothing below calls back up. Files directly
 * in services/ (wiring.ts) wire the features together and are no feature.
 */
const SERVICES = resolve(__dirname, '../../../services');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The feature a path under services/ belongs to, or null for the wiring beside them. */
function featureOf(path: string): string | null {
  const parts = relative(SERVICES, path).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0]! : null;
}

/** feature → the features it imports → the imports that make the edge ("file → module"). */
function featureGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of tsFiles(SERVICES)) {
    const from = featureOf(file);
    if (!from) continue;
    // Every import, export-from, import() and require(), type-only ones included: a type names its owner too.
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = featureOf(resolve(dirname(file), fileName));
      if (!to || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${relative(SERVICES, file)} → ${fileName}`]);
    }
  }
  return graph;
}

/** The strongly connected components with more than one feature (Tarjan): each is a circle. */
function circles(graph: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('feature graph (services/*)', () => {
  const graph = featureGraph();

  it('is measured: features import other features', () => {
    // Guards the measurement itself: a parser that found nothing would pass every check below.
    expect([...(graph.get('vendors')?.keys() ?? [])]).to.include('contracts');
  });

  it('has no two features that import each other', () => {
    const pairs: string[] = [];
    for (const [a, edges] of graph)
      for (const [b, imports] of edges) {
        const back = graph.get(b)?.get(a);
        if (a < b && back) pairs.push(`${a} ↔ ${b}:\n    ${[...imports, ...back].join('\n    ')}`);
      }
    expect(pairs, `features importing each other:\n  ${pairs.join('\n  ')}`).to.deep.equal([]);
  });

  it('has no circle among features', () => {
    const found = circles(graph).map((c) => {
      const edges = c.flatMap((a) => c.filter((b) => graph.get(a)?.has(b)).map((b) => `${a} → ${b} (${graph.get(a)!.get(b)![0]})`));
      return `${c.join(', ')}:\n    ${edges.join('\n    ')}`;
    });
    expect(found, `circles among features:\n  ${found.join('\n  ')}`).to.deep.equal([]);
  });
});
