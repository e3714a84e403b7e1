// Redocly plugin: `no-ambiguous-paths` that also reads path parameter patterns.
//
// The built-in rule reports `/signatures/{id}/cancel` against `/signatures/sign/{token}`:
// it treats `{id}` as matching any segment. The document says `{id}` is 24 hex characters,
// which the literal `sign` is not, so no URL matches both. This rule reports exactly what the
// built-in one reports, except pairs where such a pattern keeps a literal segment out of a
// parameter; a parameter without a pattern matches anything, as there.

const isParam = (segment) => /^\{.+\}$/.test(segment);

/** The `pattern` every operation of a path item declares for a path parameter, or undefined. */
function patternOf(pathItem, name, resolve) {
  const patterns = new Set();
  const operations = Object.entries(pathItem).filter(([key]) =>
    ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(key),
  );
  for (const [, operation] of operations) {
    const params = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) => (p.$ref ? resolve(p).node : p));
    const param = params.find((p) => p?.in === 'path' && p.name === name);
    const schema = param?.schema?.$ref ? resolve(param.schema).node : param?.schema;
    if (typeof schema?.pattern !== 'string') return undefined;
    patterns.add(schema.pattern);
  }
  return patterns.size === 1 ? new RegExp([...patterns][0], 'u') : undefined;
}

/** Whether a parameter segment of `a` can never equal the literal segment of `b` at the same place. */
function excluded(a, b, i, resolve) {
  const pattern = patternOf(a.item, a.segments[i].slice(1, -1), resolve);
  return pattern !== undefined && !pattern.test(b.segments[i]);
}

function NoAmbiguousPaths() {
  return {
    Paths(paths, { report, location, resolve }) {
      const seen = [];
      for (const [path, item] of Object.entries(paths)) {
        const current = { path, item: item.$ref ? resolve(item).node : item, segments: path.split('/') };
        current.params = current.segments.filter(isParam).length;
        const clash = seen.find((other) => {
          if (other.segments.length !== current.segments.length || other.params !== current.params) return false;
          return current.segments.every((segment, i) => {
            const theirs = other.segments[i];
            if (isParam(segment) && isParam(theirs)) return true;
            if (isParam(segment)) return !excluded(current, other, i, resolve);
            if (isParam(theirs)) return !excluded(other, current, i, resolve);
            return segment === theirs;
          });
        });
        if (clash) {
          report({
            message: `Paths should resolve unambiguously. Found two ambiguous paths: \`${clash.path}\` and \`${path}\`.`,
            location: location.child([path]).key(),
          });
        }
        seen.push(current);
      }
    },
  };
}

export default function pathsPlugin() {
  return { id: 'paths', rules: { oas3: { 'no-ambiguous-paths': NoAmbiguousPaths } } };
}
