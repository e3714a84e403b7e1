/**
 * Writing templates: a new template with its first version, a further version, publishing a
 * version (members draft from it) and archiving. A version is never changed once written; its
 * number is taken by inserting it (the unique index decides between concurrent uploads).
 */
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Principal } from '../../platform/security/principal';
import { isDuplicateKey } from '../../platform/mongo';
import { findOwned } from '../../platform/find-owned';
import { Template, TemplateVersion, type TemplateDoc, type TemplateVersionDoc } from '../../models/template';
import { libraryTypes } from '../clause-library/clause-library';
import { checkTemplate, type TemplateFile, type VersionDefinition } from './read-template-file';
import { templateErrors } from './errors';

const ATTEMPTS = 8;

export const publishBody = z.strictObject({
  version: z.number('must be a number').int('must be a whole number').min(1, 'must be at least 1').optional(),
});

async function addVersion(p: Principal, template: TemplateDoc, file: TemplateFile, def: VersionDefinition): Promise<TemplateVersionDoc> {
  for (let attempt = 1; ; attempt++) {
    const last = await TemplateVersion.findOne({ template_id: template._id }, { number: 1 }).sort({ number: -1 }).lean();
    try {
      return await TemplateVersion.create({
        organization_id: template.organization_id,
        template_id: template._id,
        number: (last?.number ?? 0) + 1,
        source: file.source,
        docx: file.docx,
        variables: def.variables,
        clauses: def.clauses,
        note: def.note ?? null,
        created_by: new Types.ObjectId(p.userId),
      });
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= ATTEMPTS) throw err;
    }
  }
}

export async function createTemplate(
  p: Principal,
  file: TemplateFile,
  def: VersionDefinition & { name: string; description?: string; contract_type: string },
): Promise<{ template: TemplateDoc; version: TemplateVersionDoc }> {
  checkTemplate(file, def, await libraryTypes(p.organizationId));
  const template = await Template.create({
    organization_id: new Types.ObjectId(p.organizationId),
    name: def.name,
    description: def.description ?? null,
    contract_type: def.contract_type,
    status: 'draft',
    latest_version: 1,
    created_by: new Types.ObjectId(p.userId),
  });
  const version = await addVersion(p, template, file, def);
  return { template, version };
}

/** A template of the caller's organization, as its managers see it (any status). */
const managedTemplate = (p: Principal, id: unknown) => findOwned(Template, p, id, 'Template');

export async function addTemplateVersion(
  p: Principal,
  templateId: unknown,
  file: TemplateFile,
  def: VersionDefinition,
): Promise<{ template: TemplateDoc; version: TemplateVersionDoc }> {
  const template = await managedTemplate(p, templateId);
  if (template.status === 'archived') throw templateErrors.template_archived('The template is archived');
  checkTemplate(file, def, await libraryTypes(p.organizationId));
  const version = await addVersion(p, template, file, def);
  if (version.number > template.latest_version) {
    template.latest_version = version.number;
    await template.save();
  }
  return { template, version };
}

/** Publishes a version (the latest by default): members draft from it from now on. */
export async function publishTemplate(p: Principal, templateId: unknown, number?: number): Promise<TemplateDoc> {
  const template = await managedTemplate(p, templateId);
  const n = number ?? template.latest_version;
  if (!(await TemplateVersion.exists({ template_id: template._id, number: n })))
    throw templateErrors.template_version_missing(`The template has no version ${n}`);
  template.set({ status: 'published', published_version: n });
  await template.save();
  return template;
}

export async function archiveTemplate(p: Principal, templateId: unknown): Promise<TemplateDoc> {
  const template = await managedTemplate(p, templateId);
  template.set({ status: 'archived' });
  await template.save();
  return template;
}
