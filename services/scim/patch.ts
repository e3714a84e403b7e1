/**
 * SCIM PATCH (RFC 7644 §3.5.2) applied to the SCIM form of a resource, as the providers send it:
 * `op` in any case (Entra writes "Replace"), no `path` with an object of attributes (Okta's
 * `{active: false}`, Entra's `{"name.givenName": ...}`), and value-filtered paths such as
 * Entra's `emails[type eq "work"].value`, which create the value when none matches.
 * Engine-free; the use case then saves the result as a replacement would.
 */
import { z } from 'zod';
import { scimErrors } from './errors';
import { getAttr, matches, parsePatchPath, type Json, type JsonObject, type PatchPath } from './filter';

export const patchBody = z.object({
  schemas: z.array(z.string()).optional(),
  Operations: z
    .array(
      z.object({
        op: z.string().transform((op, ctx) => {
          const lower = op.toLowerCase();
          if (lower === 'add' || lower === 'replace' || lower === 'remove') return lower;
          ctx.addIssue({ code: 'custom', message: `"${op}" is not add, replace or remove` });
          return z.NEVER;
        }),
        path: z.string().max(500).optional(),
        /** Any JSON value: the body was parsed as JSON. */
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(1000),
});
export type PatchBody = z.infer<typeof patchBody>;
type Operation = PatchBody['Operations'][number];

const isObject = (v: Json | undefined): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);

/** The key an attribute has in the object (its existing spelling), or the name given. */
function keyOf(o: JsonObject, name: string, spelled = name): string {
  return Object.keys(o).find((k) => k.toLowerCase() === name) ?? spelled;
}

/** Sets one attribute; `add` appends to multi-valued attributes and merges complex ones. */
function put(o: JsonObject, name: string, value: Json, op: 'add' | 'replace'): void {
  const key = keyOf(o, name.toLowerCase(), name);
  const present = o[key];
  if (op === 'add' && Array.isArray(present)) {
    const added = Array.isArray(value) ? value : [value];
    const seen = new Set(present.map((v) => JSON.stringify(v)));
    o[key] = [...present, ...added.filter((v) => !seen.has(JSON.stringify(v)))];
  } else if (op === 'add' && isObject(present) && isObject(value)) {
    for (const [k, v] of Object.entries(value)) put(present, k, v, 'replace');
  } else o[key] = value;
}

/** An operation without a path: each attribute of the value, `a.b` names a sub-attribute. */
function applyWhole(resource: JsonObject, op: 'add' | 'replace', value: Json | undefined): void {
  if (!isObject(value)) throw scimErrors.scim_invalid_value(`${op} without a path needs an object of attributes as its value`);
  for (const [name, v] of Object.entries(value)) {
    // An extension schema's object holds attributes; `name.givenName` is a path.
    if (/^urn:/i.test(name) && isObject(v)) applyWhole(resource, op, v);
    else applyAt(resource, op, parsePatchPath(name), v);
  }
}

/** The `value` of a multi-valued attribute's item as a string (a member's id). */
const valueOf = (v: Json): string => {
  const inner = isObject(v) ? getAttr(v, 'value') : v;
  return typeof inner === 'string' || typeof inner === 'number' ? String(inner) : '';
};

function applyAt(resource: JsonObject, op: Operation['op'], path: PatchPath, value: Json | undefined): void {
  const key = keyOf(resource, path.attr);
  if (op === 'remove' && !path.filter && !path.sub) {
    if (Array.isArray(value) && Array.isArray(resource[key])) {
      // Entra removes members by listing them as the value of a `members` remove.
      const gone = new Set(value.map(valueOf));
      resource[key] = resource[key].filter((v) => !(isObject(v) && gone.has(valueOf(v))));
    } else delete resource[key];
    return;
  }
  if (op !== 'remove' && value === undefined) throw scimErrors.scim_invalid_value(`${op} of ${path.attr} needs a value`);
  if (path.filter) {
    const list = Array.isArray(resource[key]) ? resource[key] : [];
    const hits = list.filter((v): v is JsonObject => isObject(v) && matches(v, path.filter!));
    if (op === 'remove') {
      resource[key] = path.sub ? list : list.filter((v) => !hits.includes(v as JsonObject));
      if (path.sub) for (const hit of hits) delete hit[keyOf(hit, path.sub)];
      return;
    }
    if (!hits.length) {
      // No value matches: make one from the filter's equalities (`type eq "work"`), as Entra expects.
      const made: JsonObject = {};
      seed(made, path.filter);
      list.push(made);
      hits.push(made);
      resource[key] = list;
    }
    for (const hit of hits) {
      if (path.sub) put(hit, path.sub, value!, op);
      else if (isObject(value)) Object.assign(hit, value);
      else throw scimErrors.scim_invalid_value(`${op} of a filtered ${path.attr} needs an object or a sub-attribute`);
    }
    return;
  }
  if (path.sub) {
    const parent = isObject(resource[key]) ? resource[key] : {};
    if (op === 'remove') delete parent[keyOf(parent, path.sub)];
    else put(parent, path.sub, value!, 'replace');
    resource[key] = parent;
    return;
  }
  put(resource, path.attr, value!, op as 'add' | 'replace');
}

/** The attributes a filter's `eq` comparisons fix, set on a new value. */
function seed(made: JsonObject, f: NonNullable<PatchPath['filter']>): void {
  if (f.kind === 'and') {
    seed(made, f.left);
    seed(made, f.right);
  } else if (f.kind === 'compare' && f.op === 'eq' && f.path.length === 1) made[f.path[0]!] = f.value;
}

/** The resource after the operations, in order; the input is not changed. */
export function applyPatch(resource: JsonObject, body: PatchBody): JsonObject {
  const out = structuredClone(resource);
  for (const operation of body.Operations) {
    if (operation.path === undefined || operation.path === '') {
      if (operation.op === 'remove') throw scimErrors.scim_invalid_path('remove needs a path (scimType noTarget)');
      applyWhole(out, operation.op, operation.value as Json | undefined);
    } else applyAt(out, operation.op, parsePatchPath(operation.path), operation.value as Json | undefined);
  }
  return out;
}
