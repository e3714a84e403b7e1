/** The OpenAPI description of SCIM 2.0 and its token (api/routes/scim.ts serves them). */
import { z } from 'zod';
import { patchBody } from '../../services/scim/patch';
import { groupBody } from '../../services/scim/groups';
import { listQuery, projectionQuery } from '../../services/scim/resources';
import { userBody } from '../../services/scim/users';
import { operation, timestamp } from '../http/openapi';

const tag = 'SCIM';
const scim = (description: string) => ({
  description,
  schema: z.looseObject({ schemas: z.array(z.string()) }),
  contentType: 'application/scim+json',
});
const nameParam = z.object({
  name: z.string().min(1).max(200).meta({ description: 'The name of the resource type or the URN of the schema' }),
});
/**
 * SCIM routes are public to the API's bearer check: their own token check answers 401, and
 * every refusal comes in the SCIM error schema as `application/scim+json` (api/routes/scim.ts).
 */
const noToken = {
  400: scim('Invalid (scimType invalidFilter, invalidPath, invalidValue, invalidSyntax)'),
  401: scim('No valid SCIM token'),
  404: scim("Not found in the token's organization"),
  413: scim('The body is too large'),
  415: scim('The body is not JSON'),
  503: scim('A store is unavailable; retry shortly'),
};
const scimAuth =
  'With the SCIM token of POST /settings/scim/token (not a session or API key). Errors carry the SCIM error schema: `schemas`, `status`, `scimType`, `detail`.';

for (const path of ['/scim/v2/ServiceProviderConfig', '/scim/v2/ResourceTypes', '/scim/v2/Schemas'])
  operation({
    path,
    method: 'get',
    tag,
    public: true,
    summary: `SCIM ${path.split('/').pop()}`,
    description: scimAuth,
    responses: { ...noToken, 200: scim('The document') },
  });
for (const path of ['/scim/v2/ResourceTypes/{name}', '/scim/v2/Schemas/{name}'])
  operation({
    path,
    method: 'get',
    tag,
    public: true,
    params: nameParam,
    summary: `SCIM ${path.split('/')[3]} by name`,
    description: scimAuth,
    responses: { ...noToken, 200: scim('The document') },
  });

for (const [name, body] of [
  ['Users', userBody],
  ['Groups', groupBody],
] as const) {
  const one = name.slice(0, -1);
  const common = { tag, public: true, description: scimAuth };
  operation({
    ...common,
    path: `/scim/v2/${name}`,
    method: 'get',
    query: listQuery.extend(projectionQuery.shape),
    summary: `List ${name} (filter, startIndex, count)`,
    responses: { ...noToken, 200: scim('A ListResponse') },
  });
  operation({
    ...common,
    path: `/scim/v2/${name}`,
    method: 'post',
    body,
    summary: `Create a ${one}`,
    responses: { ...noToken, 201: scim(`The ${one}`), 409: scim('Taken (scimType uniqueness)') },
  });
  operation({
    ...common,
    path: `/scim/v2/${name}/{id}`,
    method: 'get',
    query: projectionQuery,
    summary: `Read a ${one}`,
    responses: { ...noToken, 200: scim(`The ${one}`) },
  });
  operation({
    ...common,
    path: `/scim/v2/${name}/{id}`,
    method: 'put',
    body,
    summary: `Replace a ${one}`,
    responses: { ...noToken, 200: scim(`The ${one}`), 409: scim('Taken, or the last owner (scimType uniqueness, mutability)') },
  });
  operation({
    ...common,
    path: `/scim/v2/${name}/{id}`,
    method: 'patch',
    body: patchBody,
    summary: `Change a ${one} (PatchOp)`,
    responses: { ...noToken, 200: scim(`The ${one}`), 409: scim('Taken, or the last owner (scimType uniqueness, mutability)') },
  });
  operation({
    ...common,
    path: `/scim/v2/${name}/{id}`,
    method: 'delete',
    summary: `Delete a ${one}`,
    responses: { ...noToken, 204: 'Deleted', 409: scim('The last owner (scimType mutability)') },
  });
}

const tokenView = z.object({
  configured: z.boolean(),
  prefix: z.string().optional(),
  created_at: timestamp.optional(),
  last_used_at: timestamp.nullable().optional(),
});
operation({
  path: '/settings/scim',
  method: 'get',
  tag,
  summary: "The organization's SCIM token, if any (never the secret)",
  responses: { 200: { description: 'The token', schema: tokenView } },
});
operation({
  path: '/settings/scim/token',
  method: 'post',
  tag,
  summary: 'Make the SCIM token (owners and admins); shown once, it replaces the previous one at once',
  responses: {
    201: { description: 'The token, this once', schema: z.object({ token: z.string(), prefix: z.string(), created_at: timestamp }) },
  },
});
operation({ path: '/settings/scim/token', method: 'delete', tag, summary: 'Revoke the SCIM token', responses: { 204: 'Revoked' } });
