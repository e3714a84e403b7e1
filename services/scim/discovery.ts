/** What the service offers through SCIM (RFC 7643 §5–7): ServiceProviderConfig, ResourceTypes and Schemas. */
import { AppError } from '../../platform/errors';
import { GROUP_SCHEMA, LIST_SCHEMA, SCIM_MAX_PAGE, USER_SCHEMA } from './resources';

const attr = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const multiValued = (name: string, description: string, extra: Record<string, unknown> = {}) =>
  attr(name, {
    type: 'complex',
    multiValued: true,
    description,
    subAttributes: [attr('value'), attr('type'), attr('primary', { type: 'boolean' }), attr('display', { mutability: 'readOnly' })],
    ...extra,
  });

const schemaMeta = (id: string) => ({ resourceType: 'Schema', location: `/Schemas/${id}` });

export const SCHEMAS = [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: USER_SCHEMA,
    name: 'User',
    description: 'A member of the organization',
    attributes: [
      attr('userName', { required: true, uniqueness: 'server' }),
      attr('externalId'),
      attr('name', { type: 'complex', subAttributes: [attr('formatted'), attr('givenName'), attr('familyName')] }),
      attr('displayName'),
      multiValued('emails', 'The primary (or work) address is the sign-in address, unique service-wide'),
      attr('active', { type: 'boolean' }),
      multiValued('roles', 'One of owner, admin, member, viewer'),
      multiValued('groups', 'The groups the member is in', { mutability: 'readOnly' }),
    ],
    meta: schemaMeta(USER_SCHEMA),
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: "A group of members; the SSO settings' group_role_map gives its members a role",
    attributes: [
      attr('displayName', { required: true, uniqueness: 'server' }),
      attr('externalId'),
      multiValued('members', 'Members of the group', {
        subAttributes: [
          attr('value', { mutability: 'immutable' }),
          attr('display', { mutability: 'readOnly' }),
          attr('type', { mutability: 'immutable' }),
        ],
      }),
    ],
    meta: schemaMeta(GROUP_SCHEMA),
  },
];

export const RESOURCE_TYPES = [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    schema: USER_SCHEMA,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: '/ResourceTypes/User' },
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    schema: GROUP_SCHEMA,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: '/ResourceTypes/Group' },
  },
];

export const SERVICE_PROVIDER_CONFIG = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: SCIM_MAX_PAGE },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    { type: 'oauthbearertoken', name: 'Bearer token', description: 'The token from POST /api/v1/settings/scim/token', primary: true },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: '/ServiceProviderConfig' },
};

export const listOf = (resources: unknown[]) => ({
  schemas: [LIST_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

export function resourceType(id: string) {
  const found = RESOURCE_TYPES.find((r) => r.id === id);
  if (!found) throw new AppError('not_found', `No resource type ${id}`);
  return found;
}

export function schemaNamed(id: string) {
  const found = SCHEMAS.find((r) => r.id === id);
  if (!found) throw new AppError('not_found', `No schema ${id}`);
  return found;
}
