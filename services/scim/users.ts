/**
 * SCIM Users (RFC 7643 §4.1) over the organization's members: `userName` is the provider's name
 * for them, the primary (or work) email their sign-in address, `active` whether they may sign
 * in, `roles` their role. A PATCH is applied to the SCIM form and saved as a replacement, so
 * both take the same checks: the owner rules, the last owner's lock, uniqueness.
 */
import { randomBytes } from 'node:crypto';
import { trusted } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { ROLES, type Role } from '../../platform/security/rbac';
import { findOwned } from '../../platform/find-owned';
import { exclusively } from '../../platform/claims';
import { isDuplicateKey } from '../../platform/mongo';
import { actorOf, recordEvent } from '../../platform/outbox/record-event';
import { hashPassword } from '../../platform/security/passwords';
import { orgFilter } from '../../models/base';
import { User, type UserDoc } from '../../models/user';
import { ScimGroup } from '../../models/scim';
import { SsoSettings } from '../../models/sso-settings';
import { emailAddress } from '../identity/credentials';
import { forgetUsers } from '../identity/auth-user';
import { changeMemberRole } from '../identity/change-member-role';
import { setMemberActive } from '../identity/set-member-active';
import { removeMember } from '../identity/remove-member';
import { scimErrors } from './errors';
import type { JsonObject } from './filter';
import { applyPatch, type PatchBody } from './patch';
import { listResponse, meta, scimBoolean, USER_SCHEMA, type listQuery } from './resources';

const text = z.string().trim().max(500);
const multi = z.looseObject({ value: z.string().max(500), type: z.string().nullish(), primary: scimBoolean.nullish() });

export const userBody = z.looseObject({
  userName: z.string().trim().min(1).max(320),
  externalId: text.nullish(),
  name: z.looseObject({ formatted: text.nullish(), givenName: text.nullish(), familyName: text.nullish() }).nullish(),
  displayName: text.nullish(),
  emails: z.array(multi).max(20).nullish(),
  active: scimBoolean.nullish(),
  roles: z.array(multi).max(20).nullish(),
});
type UserBody = z.infer<typeof userBody>;

const NAMES = [
  'userName',
  'externalId',
  'name',
  'displayName',
  'emails',
  'active',
  'roles',
  'formatted',
  'givenName',
  'familyName',
  'value',
  'type',
  'primary',
];

/** The body with its attribute names spelled as the schema does (`username`, `Active`): SCIM names are case-insensitive. */
function canonical(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(canonical);
  if (!body || typeof body !== 'object') return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[NAMES.find((n) => n.toLowerCase() === k.toLowerCase()) ?? k] = canonical(v);
  return out;
}

const parseUser = (body: unknown) => userBody.parse(canonical(body));

export async function scimUser(u: UserDoc, base: string): Promise<JsonObject> {
  const groups = await ScimGroup.find({ organization_id: u.organization_id, member_ids: u._id }, { display_name: 1 }).lean();
  return userResource(
    u,
    base,
    groups.map((g) => ({ value: g._id.toHexString(), display: g.display_name, $ref: `${base}/Groups/${g._id.toHexString()}` })),
  );
}

function userResource(u: UserDoc, base: string, groups: JsonObject[]): JsonObject {
  return {
    schemas: [USER_SCHEMA],
    id: u.id,
    ...(u.scim_external_id ? { externalId: u.scim_external_id } : {}),
    userName: u.scim_user_name ?? u.email,
    name: {
      formatted: u.full_name,
      ...(u.scim_given_name ? { givenName: u.scim_given_name } : {}),
      ...(u.scim_family_name ? { familyName: u.scim_family_name } : {}),
    },
    displayName: u.full_name,
    emails: [{ value: u.email, type: 'work', primary: true }],
    active: u.active !== false,
    roles: [{ value: u.role, primary: true }],
    groups,
    meta: meta('User', u, base),
  };
}

/** The email a body gives: the primary one, else the work one, else the first, else a userName that is an address. */
function emailOf(b: UserBody): string {
  const emails = b.emails ?? [];
  const chosen = emails.find((e) => e.primary === true) ?? emails.find((e) => e.type?.toLowerCase() === 'work') ?? emails[0];
  const parsed = emailAddress.safeParse(chosen?.value ?? b.userName);
  if (!parsed.success) throw scimErrors.scim_invalid_value('emails: a valid email address is required (or a userName that is one)');
  return parsed.data;
}

function roleOf(b: UserBody): Role | undefined {
  const roles = b.roles ?? [];
  const chosen = (roles.find((r) => r.primary === true) ?? roles[0])?.value.toLowerCase();
  if (chosen === undefined) return undefined;
  if (!(ROLES as readonly string[]).includes(chosen))
    throw scimErrors.scim_invalid_value(`roles: "${chosen}" is not one of ${ROLES.join(', ')}`);
  return chosen as Role;
}

const fullNameOf = (b: UserBody) => {
  const parts = [b.name?.givenName, b.name?.familyName].filter(Boolean).join(' ');
  return (b.displayName || b.name?.formatted || parts || b.userName).slice(0, 200);
};

const profileOf = (b: UserBody) => ({
  scim_user_name: b.userName,
  scim_external_id: b.externalId ?? null,
  scim_given_name: b.name?.givenName ?? null,
  scim_family_name: b.name?.familyName ?? null,
  full_name: fullNameOf(b),
});

const escapeRegex = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** 409 uniqueness when another member of the organization has the userName, or anyone the email. */
async function assertUnique(p: Principal, userName: string, email: string, self?: UserDoc): Promise<void> {
  const sameName = await User.findOne(
    { ...orgFilter(p.organizationId), scim_user_name: trusted({ $regex: `^${escapeRegex(userName)}$`, $options: 'i' }) },
    { _id: 1 },
  ).lean();
  if (sameName && !sameName._id.equals(self?._id)) throw scimErrors.scim_uniqueness(`userName "${userName}" is already taken`);
  const sameEmail = await User.findOne({ email }, { _id: 1 }).lean();
  if (sameEmail && !sameEmail._id.equals(self?._id)) throw scimErrors.scim_uniqueness(`The email ${email} is already registered`);
}

export async function listScimUsers(p: Principal, q: z.infer<typeof listQuery>, base: string) {
  const [users, groups] = await Promise.all([
    User.find(orgFilter(p.organizationId)).sort({ _id: 1 }),
    ScimGroup.find(orgFilter(p.organizationId), { display_name: 1, member_ids: 1 }).lean(),
  ]);
  const groupsOf = (u: UserDoc) =>
    groups
      .filter((g) => g.member_ids.some((m) => m.equals(u._id)))
      .map((g) => ({ value: g._id.toHexString(), display: g.display_name, $ref: `${base}/Groups/${g._id.toHexString()}` }));
  return listResponse(
    users.map((u) => userResource(u, base, groupsOf(u))),
    q,
  );
}

export const getScimUser = async (p: Principal, id: string, base: string) => scimUser(await findOwned(User, p, id, 'User'), base);

export async function createScimUser(s: Engines, p: Principal, raw: unknown, base: string): Promise<JsonObject> {
  const b = parseUser(raw);
  const email = emailOf(b);
  const settings = await SsoSettings.findOne(orgFilter(p.organizationId), { default_role: 1 }).lean();
  const role = roleOf(b) ?? settings?.default_role ?? 'member';
  if (role === 'owner' && p.role !== 'owner') throw scimErrors.scim_mutability('Only a token made by an owner grants the owner role');
  const user = await exclusively('scim-users', p.organizationId, async () => {
    await assertUnique(p, b.userName, email);
    try {
      return await User.create({
        organization_id: p.organizationId,
        email,
        ...profileOf(b),
        // A password nobody knows: the member signs in through the provider (or resets one by mail).
        password_hash: await hashPassword(randomBytes(32).toString('base64url')),
        role,
        active: b.active ?? true,
        is_approved: true,
        joined_at: new Date(),
        // The organization's own provider vouches for the address.
        email_verified_at: new Date(),
      });
    } catch (err) {
      if (isDuplicateKey(err)) throw scimErrors.scim_uniqueness(`The email ${email} is already registered`);
      throw err;
    }
  });
  await recordEvent(s, {
    organizationId: p.organizationId,
    type: 'team.member_joined',
    data: { id: user.id, email: user.email, full_name: user.full_name, role: user.role, via: 'scim' },
    actor: actorOf(p),
    resource: { type: 'user', id: user.id },
    summary: `${user.full_name} joined the team as ${user.role} through SCIM`,
  });
  return scimUser(user, base);
}

/** PUT: the member becomes what the body says; attributes it leaves out keep no value (roles and active keep theirs). */
export async function replaceScimUser(s: Engines, p: Principal, id: string, raw: unknown, base: string): Promise<JsonObject> {
  const b = parseUser(raw);
  const target = await findOwned(User, p, id, 'User');
  const email = emailOf(b);
  const role = roleOf(b);
  await exclusively('scim-users', p.organizationId, () => assertUnique(p, b.userName, email, target));
  // The changes the owner rules guard come first: a refused one leaves the member as they were.
  if (b.active === false) await setMemberActive(s, p, id, false, 'scim');
  if (role && role !== target.role) await changeMemberRole(s, p, id, { role });
  if (b.active === true) await setMemberActive(s, p, id, true, 'scim');
  const member = await findOwned(User, p, id, 'User');
  member.set({ ...profileOf(b), ...(email !== member.email ? { email, email_verified_at: new Date() } : {}) });
  try {
    await member.save();
  } catch (err) {
    if (isDuplicateKey(err)) throw scimErrors.scim_uniqueness(`The email ${email} is already registered`);
    throw err;
  }
  await forgetUsers(s, [member._id]);
  return scimUser(member, base);
}

export async function patchScimUser(s: Engines, p: Principal, id: string, body: PatchBody, base: string): Promise<JsonObject> {
  const current = await getScimUser(p, id, base);
  const patched = applyPatch(current, body);
  for (const readOnly of ['id', 'meta', 'groups', 'schemas']) patched[readOnly] = current[readOnly]!;
  return replaceScimUser(s, p, id, patched, base);
}

export const deleteScimUser = (s: Engines, p: Principal, id: string) => removeMember(s, p, id);
