import { expect } from 'chai';
import { AppError } from '../../../platform/errors';
import { ROLES, type Role } from '../../../platform/security/rbac';
import { assertKeepsAnOwner, assertMayTouchOwner } from '../../../services/identity/owner-rules';

/** The status the rule answers, or null when it lets the change through. */
function statusOf(rule: () => void): number | null {
  try {
    rule();
    return null;
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return (err as AppError).status;
  }
}

describe('owner rules', () => {
  it('lets only an owner grant or take away owner', () => {
    for (const actor of ROLES) {
      const expected = actor === 'owner' ? null : 403;
      expect(
        statusOf(() => assertMayTouchOwner({ role: actor }, 'owner')),
        `${actor} grants owner`,
      ).to.equal(expected);
      expect(
        statusOf(() => assertMayTouchOwner({ role: actor }, 'owner', 'viewer')),
        `${actor} demotes an owner`,
      ).to.equal(expected);
    }
  });

  it('leaves changes among the other roles to owners and admins alike', () => {
    const others: Role[] = ROLES.filter((r) => r !== 'owner');
    for (const actor of ROLES) {
      for (const from of others) {
        for (const to of others) expect(statusOf(() => assertMayTouchOwner({ role: actor }, from, to))).to.equal(null);
      }
    }
  });

  it('keeps at least one owner', () => {
    expect(statusOf(() => assertKeepsAnOwner(0))).to.equal(409);
    expect(statusOf(() => assertKeepsAnOwner(1))).to.equal(null);
    expect(statusOf(() => assertKeepsAnOwner(5))).to.equal(null);
  });
});
