/**
 * Reading templates: members see the published ones (their published version), admins and
 * owners every one and every version. A template answers with its variables as a JSON Schema
 * a front end builds the draft form from.
 */
import { Types, trusted } from 'mongoose';
import { findOwned } from '../../platform/find-owned';
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { can } from '../../platform/security/rbac';
import { z } from 'zod';
import { TEMPLATE_STATUSES, Template, TemplateVersion, type TemplateDoc, type TemplateVersionDoc } from '../../models/template';
import { Clause } from '../../models/clause';
import type { Position } from '../clause-library/clause-positions';
import { variablesJsonSchema, type VariableDef } from '../clause-library/variables';

export const listTemplatesQuery = z.object({ status: z.enum(TEMPLATE_STATUSES).optional() });

export const managesTemplates = (p: Principal) => can(p.role, 'templates:manage');

/** The templates the caller may see, by name. */
export async function listTemplates(p: Principal, status?: string) {
  const filter: Record<string, unknown> = { organization_id: new Types.ObjectId(p.organizationId) };
  if (!managesTemplates(p)) filter.status = 'published';
  else if (status) filter.status = status;
  return Template.find(filter).sort({ name: 1 }).limit(500);
}

/** The template if the caller may see it: a member only a published one. */
export async function visibleTemplate(p: Principal, id: unknown): Promise<TemplateDoc> {
  const t = await findOwned(Template, p, id, 'Template');
  if (!managesTemplates(p) && t.status !== 'published') throw notFound('Template');
  return t;
}

export async function templateVersion(t: TemplateDoc, number: number): Promise<TemplateVersionDoc> {
  const v = await TemplateVersion.findOne({ template_id: t._id, organization_id: t.organization_id, number });
  if (!v) throw notFound('Template version');
  return v;
}

/**
 * Every variable a draft gives: the template's, and those of the clauses it places (each
 * position's; a clause variable a template variable of the same name already declares is that one).
 */
export async function draftVariables(organizationId: Types.ObjectId, v: TemplateVersionDoc): Promise<VariableDef[]> {
  const own = v.variables as VariableDef[];
  const clauses = v.clauses.length ? await Clause.find({ organization_id: organizationId, type: trusted({ $in: v.clauses }) }).lean() : [];
  const seen = new Set(own.map((d) => d.name));
  const extra: VariableDef[] = [];
  for (const c of clauses)
    for (const pos of c.positions as Position[])
      for (const d of pos.variables ?? []) {
        if (seen.has(d.name)) continue;
        seen.add(d.name);
        // Only the chosen position's variables are needed: each is optional in the form.
        extra.push({ ...d, required: false });
      }
  return [...own, ...extra];
}

export async function templateView(p: Principal, t: TemplateDoc) {
  const number = managesTemplates(p) ? t.latest_version : t.published_version!;
  const v = await templateVersion(t, number);
  const variables = await draftVariables(t.organization_id, v);
  return {
    id: t.id,
    name: t.name,
    description: t.description ?? null,
    contract_type: t.contract_type,
    status: t.status,
    latest_version: t.latest_version,
    published_version: t.published_version ?? null,
    version: versionView(v),
    variables: v.variables as VariableDef[],
    variables_schema: variablesJsonSchema(variables),
    created_at: t.get('created_at') as Date,
    updated_at: t.get('updated_at') as Date,
  };
}

export const versionView = (v: TemplateVersionDoc) => ({
  number: v.number,
  source: v.source,
  clauses: v.clauses,
  note: v.note ?? null,
  created_at: v.get('created_at') as Date,
});

export const templateListItem = (t: TemplateDoc) => ({
  id: t.id,
  name: t.name,
  description: t.description ?? null,
  contract_type: t.contract_type,
  status: t.status,
  latest_version: t.latest_version,
  published_version: t.published_version ?? null,
  updated_at: t.get('updated_at') as Date,
});
