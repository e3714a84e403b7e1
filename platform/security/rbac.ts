/**
 * The role policy: one table, read by the `authorize(permission)` middleware of every route.
 * It mirrors the role table (owner, admin, member, viewer) of docs/reference/service-interface.md:
 * - viewer: reads everything it may see ("View Only"), asks the chat, reads analytics and the team;
 * - member: also creates and edits contracts, vendors and documents, sends and signs
 *   signature requests ("Create/Edit", "Send/Sign"), runs scans and syncs; no deletes of
 *   contracts or vendors, no team or settings writes ("View", "Own Profile");
 * - admin: everything except billing changes ("Billing: View");
 * - owner: everything.
 */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
export const roleAtLeast = (role: Role, min: Role) => RANK[role] >= RANK[min];

const VIEWER = [
  'contracts:read',
  'vendors:read',
  'documents:read',
  'signatures:read',
  'chat:use',
  'compliance:read',
  'analytics:read',
  'team:read',
  'integrations:read',
  'profile:manage',
] as const;
const MEMBER = [
  ...VIEWER,
  'contracts:write',
  'vendors:write',
  'documents:write',
  'signatures:send',
  'chat:sync',
  'compliance:scan',
  'compliance:write',
  'integrations:sync',
] as const;
const ADMIN = [
  ...MEMBER,
  'contracts:delete',
  'vendors:delete',
  'documents:delete',
  'team:manage',
  'settings:manage',
  'integrations:manage',
  'webhooks:manage',
  'billing:read',
  // Templates and the clause library are the organization's approved language.
  'templates:manage',
] as const;
// Rebuilding the organization's search documents is heavy: owners only.
const OWNER = [...ADMIN, 'billing:manage', 'search:reindex'] as const;

export type Permission = (typeof OWNER)[number];

export const POLICY: Record<Role, ReadonlySet<Permission>> = {
  viewer: new Set(VIEWER),
  member: new Set(MEMBER),
  admin: new Set(ADMIN),
  owner: new Set(OWNER),
};

export const can = (role: Role, permission: Permission) => POLICY[role].has(permission);
