/**
 * SCIM filters (RFC 7644 §3.4.2.2) and PATCH paths (§3.5.2), parsed and evaluated on the SCIM
 * form of a resource; engine-free, so tested alone. Attribute names and string comparisons
 * ignore case (every attribute this service offers is caseExact false, ids aside, which are hex).
 */
import { scimErrors } from './errors';

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

type Op = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export type Filter =
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; inner: Filter }
  | { kind: 'present'; path: string[] }
  | { kind: 'compare'; path: string[]; op: Op; value: string | number | boolean | null }
  | { kind: 'valuePath'; path: string[]; inner: Filter };

const OPS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const SCHEMA_URN = /^urn:[^ ]*:/i;

type Token = { t: 'word' | 'string' | '(' | ')' | '[' | ']'; v: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if ('()[]'.includes(c)) {
      tokens.push({ t: c as '(', v: c });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      let out = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        out += text[j++];
      }
      if (j >= text.length) throw scimErrors.scim_invalid_filter('Unterminated string in the filter');
      tokens.push({ t: 'string', v: out });
      i = j + 1;
    } else {
      const m = /^[^\s()[\]"]+/.exec(text.slice(i))!;
      tokens.push({ t: 'word', v: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

/** `name.givenName` → ['name', 'givenname']; a schema URN prefix is dropped. */
export function attributePath(raw: string): string[] {
  let name = raw;
  const urn = SCHEMA_URN.exec(raw) ? raw.lastIndexOf(':') : -1;
  if (urn >= 0) name = raw.slice(urn + 1);
  if (!/^[A-Za-z$][\w$-]*(\.[A-Za-z$][\w$-]*)?$/.test(name)) throw scimErrors.scim_invalid_filter(`"${raw}" is not an attribute path`);
  return name.toLowerCase().split('.');
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const f = this.or();
    if (this.at < this.tokens.length) throw scimErrors.scim_invalid_filter(`Unexpected "${this.tokens[this.at]!.v}" in the filter`);
    return f;
  }

  private peekWord(): string | undefined {
    const t = this.tokens[this.at];
    return t?.t === 'word' ? t.v.toLowerCase() : undefined;
  }

  private next(): Token {
    const t = this.tokens[this.at++];
    if (!t) throw scimErrors.scim_invalid_filter('The filter ends too early');
    return t;
  }

  or(): Filter {
    let left = this.and();
    while (this.peekWord() === 'or') {
      this.at++;
      left = { kind: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Filter {
    let left = this.factor();
    while (this.peekWord() === 'and') {
      this.at++;
      left = { kind: 'and', left, right: this.factor() };
    }
    return left;
  }

  private factor(): Filter {
    if (this.peekWord() === 'not') {
      this.at++;
      return { kind: 'not', inner: this.group('(', ')') };
    }
    if (this.tokens[this.at]?.t === '(') return this.group('(', ')');
    const attr = this.next();
    if (attr.t !== 'word') throw scimErrors.scim_invalid_filter(`Expected an attribute, found "${attr.v}"`);
    const path = attributePath(attr.v);
    if (this.tokens[this.at]?.t === '[') return { kind: 'valuePath', path, inner: this.group('[', ']') };
    const op = this.next().v.toLowerCase();
    if (op === 'pr') return { kind: 'present', path };
    if (!OPS.has(op)) throw scimErrors.scim_invalid_filter(`"${op}" is not a filter operator`);
    const v = this.next();
    let value: string | number | boolean | null;
    if (v.t === 'string') value = v.v;
    else if (v.t !== 'word') throw scimErrors.scim_invalid_filter(`Expected a value after ${op}`);
    else if (/^(true|false)$/i.test(v.v)) value = v.v.toLowerCase() === 'true';
    else if (/^null$/i.test(v.v)) value = null;
    else if (/^-?\d+(\.\d+)?$/.test(v.v)) value = Number(v.v);
    else throw scimErrors.scim_invalid_filter(`"${v.v}" is not a filter value (quote strings)`);
    return { kind: 'compare', path, op: op as Op, value };
  }

  private group(open: string, close: string): Filter {
    if (this.next().t !== open) throw scimErrors.scim_invalid_filter(`Expected "${open}"`);
    const inner = this.or();
    if (this.next().t !== close) throw scimErrors.scim_invalid_filter(`Expected "${close}"`);
    return inner;
  }
}

export function parseFilter(text: string): Filter {
  if (!text.trim()) throw scimErrors.scim_invalid_filter('The filter is empty');
  return new Parser(tokenize(text)).parse();
}

/** The attribute of an object, its name in any case. */
export function getAttr(o: JsonObject, name: string): Json | undefined {
  const key = Object.keys(o).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : o[key];
}

/** Every value at the path, multi-valued attributes flattened. */
function valuesAt(o: JsonObject, path: string[]): Json[] {
  let current: Json[] = [o];
  for (const part of path) {
    const next: Json[] = [];
    for (const v of current.flatMap((x) => (Array.isArray(x) ? x : [x])))
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const found = getAttr(v, part);
        if (found !== undefined && found !== null) next.push(found);
      }
    current = next;
  }
  return current.flatMap((x) => (Array.isArray(x) ? x : [x]));
}

function compare(actual: Json, op: Op, expected: string | number | boolean | null): boolean {
  if (expected === null) return op === 'ne' ? actual !== null : actual === null;
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = actual.toLowerCase();
    const e = expected.toLowerCase();
    const order = a < e ? -1 : a > e ? 1 : 0;
    return {
      eq: a === e,
      ne: a !== e,
      co: a.includes(e),
      sw: a.startsWith(e),
      ew: a.endsWith(e),
      gt: order > 0,
      ge: order >= 0,
      lt: order < 0,
      le: order <= 0,
    }[op];
  }
  if (typeof actual === 'boolean' || typeof expected === 'boolean') {
    if (op === 'eq') return actual === expected;
    if (op === 'ne') return actual !== expected;
    throw scimErrors.scim_invalid_filter(`${op} does not apply to booleans`);
  }
  if (typeof actual === 'number' && typeof expected === 'number')
    return {
      eq: actual === expected,
      ne: actual !== expected,
      gt: actual > expected,
      ge: actual >= expected,
      lt: actual < expected,
      le: actual <= expected,
      co: false,
      sw: false,
      ew: false,
    }[op];
  return op === 'ne';
}

export function matches(o: JsonObject, f: Filter): boolean {
  switch (f.kind) {
    case 'and':
      return matches(o, f.left) && matches(o, f.right);
    case 'or':
      return matches(o, f.left) || matches(o, f.right);
    case 'not':
      return !matches(o, f.inner);
    case 'present':
      return valuesAt(o, f.path).some((v) => v !== '' && !(Array.isArray(v) && !v.length));
    case 'valuePath':
      return valuesAt(o, f.path).some((v) => !!v && typeof v === 'object' && !Array.isArray(v) && matches(v, f.inner));
    case 'compare': {
      const values = valuesAt(o, f.path);
      if (f.op === 'ne') return values.every((v) => compare(v, 'ne', f.value));
      return values.some((v) => compare(v, f.op, f.value));
    }
  }
}

/** A PATCH path: an attribute, optionally a filter on its values, optionally a sub-attribute. */
export interface PatchPath {
  attr: string;
  filter?: Filter;
  sub?: string;
}

export function parsePatchPath(raw: string): PatchPath {
  const bad = () => scimErrors.scim_invalid_path(`"${raw}" is not a PATCH path`);
  const m = /^(.*?)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/s.exec(raw.trim());
  if (!m) throw bad();
  try {
    const [, attrRaw, filterRaw, subRaw] = m;
    const path = attributePath(attrRaw!);
    if (filterRaw !== undefined) {
      if (path.length !== 1) throw bad();
      return { attr: path[0]!, filter: parseFilter(filterRaw), ...(subRaw ? { sub: subRaw.toLowerCase() } : {}) };
    }
    // Without a filter, `name.givenName` reads as attribute and sub-attribute.
    if (subRaw) path.push(subRaw.toLowerCase());
    if (path.length > 2) throw bad();
    return { attr: path[0]!, ...(path[1] ? { sub: path[1] } : {}) };
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'scim_invalid_filter')
      throw scimErrors.scim_invalid_path(`"${raw}": ${err.message}`);
    throw err;
  }
}
