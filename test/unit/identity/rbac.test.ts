import { expect } from 'chai';
import { POLICY, ROLES, can, roleAtLeast, type Permission, type Role } from '../../../platform/security/rbac';

/**
 * The role table of docs/reference/service-interface.md, column by column, as permissions:
 * Contracts Full / Create/Edit / View Only; Signatures Full / Send/Sign / View Only;
 * Team Full / View; Billing Full / View / no entry; Settings Full / Own Profile.
 */
const TABLE: Record<Permission, readonly Role[]> = {
  'contracts:read': ['owner', 'admin', 'member', 'viewer'],
  'contracts:write': ['owner', 'admin', 'member'],
  'contracts:delete': ['owner', 'admin'],
  'signatures:read': ['owner', 'admin', 'member', 'viewer'],
  'signatures:send': ['owner', 'admin', 'member'],
  'team:read': ['owner', 'admin', 'member', 'viewer'],
  'team:manage': ['owner', 'admin'],
  'billing:read': ['owner', 'admin'],
  'billing:manage': ['owner'],
  'search:reindex': ['owner'],
  'settings:manage': ['owner', 'admin'],
  'profile:manage': ['owner', 'admin', 'member', 'viewer'],
  // The decisions' reading for resources the table does not name.
  'vendors:read': ['owner', 'admin', 'member', 'viewer'],
  'vendors:write': ['owner', 'admin', 'member'],
  'vendors:delete': ['owner', 'admin'],
  'documents:read': ['owner', 'admin', 'member', 'viewer'],
  'documents:write': ['owner', 'admin', 'member'],
  'documents:delete': ['owner', 'admin'],
  'chat:use': ['owner', 'admin', 'member', 'viewer'],
  'chat:sync': ['owner', 'admin', 'member'],
  'compliance:read': ['owner', 'admin', 'member', 'viewer'],
  'compliance:scan': ['owner', 'admin', 'member'],
  'compliance:write': ['owner', 'admin', 'member'],
  'analytics:read': ['owner', 'admin', 'member', 'viewer'],
  'integrations:read': ['owner', 'admin', 'member', 'viewer'],
  'integrations:sync': ['owner', 'admin', 'member'],
  'integrations:manage': ['owner', 'admin'],
  'webhooks:manage': ['owner', 'admin'],
  'templates:manage': ['owner', 'admin'],
};

describe('RBAC policy table', () => {
  it('covers exactly the permissions of the code', () => {
    expect(Object.keys(TABLE).sort()).to.deep.equal([...POLICY.owner].sort());
  });

  for (const [permission, allowed] of Object.entries(TABLE) as [Permission, readonly Role[]][]) {
    for (const role of ROLES) {
      const expected = allowed.includes(role);
      it(`${role} ${expected ? 'may' : 'may not'} ${permission}`, () => {
        expect(can(role, permission)).to.equal(expected);
      });
    }
  }

  it('orders roles owner > admin > member > viewer', () => {
    expect(roleAtLeast('owner', 'admin')).to.equal(true);
    expect(roleAtLeast('admin', 'owner')).to.equal(false);
    expect(roleAtLeast('member', 'viewer')).to.equal(true);
    expect(roleAtLeast('viewer', 'member')).to.equal(false);
  });
});
