/**
 * SCIM Groups (RFC 7643 §4.2): a name and its members. A group named in the SSO settings'
 * `group_role_map` gives its members that role (the highest of their groups); a member who
 * leaves every mapped group falls back to `default_role`. Owners keep their role: groups
 * grant admin, member or viewer only.
 */
import { trusted, Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { findOwned } from '../../platform/find-owned';
import { isDuplicateKey } from '../../platform/mongo';
import { orgFilter } from '../../models/base';
import { ScimGroup, type ScimGroupDoc } from '../../models/scim';
import { SsoSettings } from '../../models/sso-settings';
import { User } from '../../models/user';
import { changeMemberRole } from '../identity/change-member-role';
import { scimErrors } from './errors';
import type { JsonObject } from './filter';
import { applyPatch, type PatchBody } from './patch';
import { GROUP_SCHEMA, listResponse, meta, type listQuery } from './resources';

export const groupBody = z.looseObject({
  displayName: z.string().trim().min(1).max(255),
  externalId: z.string().max(500).nullish(),
  members: z
    .array(z.looseObject({ value: z.string().max(100) }))
    .max(10_000)
    .nullish(),
});

const canonical = (body: unknown) =>
  body && typeof body === 'object' && !Array.isArray(body)
    ? Object.fromEntries(
        Object.entries(body).map(([k, v]) => [
          ['displayName', 'externalId', 'members'].find((n) => n.toLowerCase() === k.toLowerCase()) ?? k,
          v,
        ]),
      )
    : body;

async function groupResource(g: ScimGroupDoc, base: string): Promise<JsonObject> {
  const users = await User.find(
    { ...orgFilter(g.organization_id.toHexString()), _id: trusted({ $in: g.member_ids }) },
    { full_name: 1 },
  ).lean();
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    displayName: g.display_name,
    ...(g.external_id ? { externalId: g.external_id } : {}),
    members: users.map((u) => ({
      value: u._id.toHexString(),
      display: u.full_name,
      type: 'User',
      $ref: `${base}/Users/${u._id.toHexString()}`,
    })),
    meta: meta('Group', g, base),
  };
}

/** The members' ids, each a member of this organization; another's id is refused as if unknown. */
async function memberIds(p: Principal, members: Array<{ value: string }>): Promise<Types.ObjectId[]> {
  const ids = [...new Set(members.map((m) => m.value))];
  if (ids.some((id) => !Types.ObjectId.isValid(id) || id.length !== 24))
    throw scimErrors.scim_invalid_value('members: each value must be a User id');
  const found = await User.find(
    { ...orgFilter(p.organizationId), _id: trusted({ $in: ids.map((id) => new Types.ObjectId(id)) }) },
    { _id: 1 },
  ).lean();
  if (found.length !== ids.length) throw scimErrors.scim_invalid_value('members: a value names no User of this organization');
  return found.map((u) => u._id);
}

/** Gives the members whose mapped groups changed the role their groups now map to. */
async function syncRoles(s: Engines, p: Principal, affected: Types.ObjectId[]): Promise<void> {
  const settings = await SsoSettings.findOne(orgFilter(p.organizationId), { group_role_map: 1, default_role: 1 }).lean();
  if (!settings?.group_role_map.length || !affected.length) return;
  const groups = await ScimGroup.find(
    { ...orgFilter(p.organizationId), member_ids: trusted({ $in: affected }) },
    { display_name: 1, member_ids: 1 },
  ).lean();
  const users = await User.find({ ...orgFilter(p.organizationId), _id: trusted({ $in: affected }) }, { role: 1 }).lean();
  for (const u of users) {
    if (u.role === 'owner') continue;
    const names = groups.filter((g) => g.member_ids.some((m) => m.equals(u._id))).map((g) => g.display_name);
    const mapped = settings.group_role_map.filter((m) => names.includes(m.group ?? '')).map((m) => m.role);
    const role = (['admin', 'member', 'viewer'] as const).find((r) => mapped.includes(r)) ?? settings.default_role;
    if (role !== u.role) await changeMemberRole(s, p, u._id.toHexString(), { role });
  }
}

const isMapped = async (p: Principal, ...names: string[]) =>
  !!(await SsoSettings.exists({ ...orgFilter(p.organizationId), 'group_role_map.group': trusted({ $in: names }) }));

export async function listScimGroups(p: Principal, q: z.infer<typeof listQuery>, base: string) {
  const groups = await ScimGroup.find(orgFilter(p.organizationId)).sort({ _id: 1 });
  return listResponse(await Promise.all(groups.map((g) => groupResource(g, base))), q);
}

export const getScimGroup = async (p: Principal, id: string, base: string) =>
  groupResource(await findOwned(ScimGroup, p, id, 'Group'), base);

export async function createScimGroup(s: Engines, p: Principal, raw: unknown, base: string) {
  const b = groupBody.parse(canonical(raw));
  const members = await memberIds(p, b.members ?? []);
  let group: ScimGroupDoc;
  try {
    group = await ScimGroup.create({
      organization_id: p.organizationId,
      display_name: b.displayName,
      external_id: b.externalId ?? null,
      member_ids: members,
    });
  } catch (err) {
    if (isDuplicateKey(err)) throw scimErrors.scim_uniqueness(`A group named "${b.displayName}" already exists`);
    throw err;
  }
  if (await isMapped(p, group.display_name)) await syncRoles(s, p, members);
  return groupResource(group, base);
}

export async function replaceScimGroup(s: Engines, p: Principal, id: string, raw: unknown, base: string) {
  const b = groupBody.parse(canonical(raw));
  const group = await findOwned(ScimGroup, p, id, 'Group');
  const members = await memberIds(p, b.members ?? []);
  const before = { name: group.display_name, members: group.member_ids };
  group.set({ display_name: b.displayName, external_id: b.externalId ?? null, member_ids: members });
  try {
    await group.save();
  } catch (err) {
    if (isDuplicateKey(err)) throw scimErrors.scim_uniqueness(`A group named "${b.displayName}" already exists`);
    throw err;
  }
  if (await isMapped(p, before.name, group.display_name)) await syncRoles(s, p, [...before.members, ...members]);
  return groupResource(group, base);
}

export async function patchScimGroup(s: Engines, p: Principal, id: string, body: PatchBody, base: string) {
  const current = await getScimGroup(p, id, base);
  return replaceScimGroup(s, p, id, applyPatch(current, body), base);
}

export async function deleteScimGroup(s: Engines, p: Principal, id: string): Promise<void> {
  const group = await findOwned(ScimGroup, p, id, 'Group');
  await ScimGroup.deleteOne({ _id: group._id });
  if (await isMapped(p, group.display_name)) await syncRoles(s, p, group.member_ids);
}
