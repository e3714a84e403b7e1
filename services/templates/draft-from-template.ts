/**
 * Drafting a contract from a template's published version: the variables checked (a 400 names
 * every wrong field), the clause positions chosen (the preferred one unless a fallback is
 * asked for), the DOCX rendered with the template's formatting and converted to the PDF of
 * record by LibreOffice, both stored as the contract's documents, its content the text,
 * version 1 recording the template, its version and the clause positions, the key terms the
 * variables state stored as from the template, and the approval a needs-approval fallback's
 * policy calls for started. Nothing is written until both files are rendered; should writing
 * the contract fail, its files and documents are removed again.
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Types } from 'mongoose';
import PizZip from 'pizzip';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { idSchema } from '../../platform/input';
import { docxToPdf, PdfRenderError } from '../../platform/docx/pdf';
import { Clause } from '../../models/clause';
import { Document } from '../../models/document';
import type { ContractDoc, ContractType } from '../../models/contract';
import type { TemplateDoc, TemplateVersionDoc } from '../../models/template';
import { MIME, sanitizeFilename } from '../documents/document-files';
import { createContract, createContractBody } from '../contracts/edit-contract';
import { recordTemplateTerms } from '../contracts/contract-terms';
import type { DraftedVersion } from '../contracts/contract-versions';
import { NORMALIZED, type KeyTermName } from '../contracts/key-terms.shared';
import { startApproval, type StartResult } from '../approvals/start-approval';
import { fillPosition, type Position } from '../clause-library/clause-positions';
import { checkValues, renderData, termsOfValues, type VariableDef } from '../clause-library/variables';
import { renderTemplate } from './render-template';
import { templateVersion, visibleTemplate } from './template-view';
import { templateErrors } from './errors';

export const draftFromTemplateBody = createContractBody
  .omit({ content: true, document_id: true, type: true })
  .partial({ title: true })
  .extend({
    template_id: idSchema,
    variables: z.record(z.string(), z.unknown(), 'must be an object of variable values').default({}),
    /** The position chosen per clause type the template places: 0 the preferred (the default), n the n-th fallback. */
    clauses: z
      .record(
        z.string(),
        z.number('must be a number').int('must be a whole number').min(0, 'must not be negative'),
        'must map clause types to positions',
      )
      .default({}),
  });
export type DraftFromTemplateBody = z.infer<typeof draftFromTemplateBody>;

interface ChosenClause {
  type: string;
  clause: { _id: Types.ObjectId; version: number; key_term: string | null };
  index: number;
  position: Position;
}

/** The clause positions the draft uses, and the problems of its choices. */
async function chooseClauses(t: TemplateDoc, v: TemplateVersionDoc, asked: Record<string, number>) {
  const problems: string[] = [];
  for (const type of Object.keys(asked))
    if (!v.clauses.includes(type)) problems.push(`clauses.${type}: the template places no such clause`);
  const chosen: ChosenClause[] = [];
  for (const type of v.clauses) {
    const clause = await Clause.findOne({ organization_id: t.organization_id, type }).lean();
    if (!clause) {
      problems.push(`clauses.${type}: the clause library no longer holds this clause type`);
      continue;
    }
    const positions = clause.positions as Position[];
    const index = asked[type] ?? 0;
    if (index >= positions.length) {
      problems.push(`clauses.${type}: must be 0 (preferred)${positions.length > 1 ? ` to ${positions.length - 1} (fallbacks)` : ''}`);
      continue;
    }
    chosen.push({
      type,
      clause: { _id: clause._id, version: clause.version, key_term: clause.key_term ?? null },
      index,
      position: positions[index]!,
    });
  }
  return { chosen, problems };
}

async function storeFile(s: Engines, p: Principal, contractId: Types.ObjectId, bytes: Buffer, name: string, mime: string) {
  const storage_path = path.resolve(s.config.UPLOAD_DIR, `draft-${randomUUID()}`);
  await writeFile(storage_path, bytes);
  return Document.create({
    organization_id: new Types.ObjectId(p.organizationId),
    filename: sanitizeFilename(name),
    size_bytes: bytes.length,
    mime_type: mime,
    category: 'contract',
    status: 'ready',
    uploaded_by: p.userId,
    storage_path,
    processed_at: new Date(),
    contract_id: contractId,
  });
}

/** The key terms the chosen positions state (a variable stating the same term wins). */
function termsOfClauses(chosen: readonly ChosenClause[]) {
  const out: Partial<Record<KeyTermName, { value: string; normalized: unknown }>> = {};
  for (const c of chosen) {
    const key = c.clause.key_term as KeyTermName | null;
    const value = c.position.term_value;
    if (!key || !value) continue;
    const normalized = NORMALIZED[key].safeParse(value).success ? value : null;
    out[key] = { value, normalized };
  }
  return out;
}

export async function draftFromTemplate(
  s: Engines,
  p: Principal,
  body: DraftFromTemplateBody,
): Promise<{ contract: ContractDoc; approval: StartResult | null }> {
  const t = await visibleTemplate(p, body.template_id);
  if (t.status !== 'published' || !t.published_version)
    throw templateErrors.template_not_published('The template has no published version to draft from');
  const v = await templateVersion(t, t.published_version);
  const { chosen, problems } = await chooseClauses(t, v, body.clauses);
  const defs: VariableDef[] = [...(v.variables as VariableDef[])];
  for (const c of chosen) for (const d of c.position.variables ?? []) if (!defs.some((x) => x.name === d.name)) defs.push(d);
  const checked = checkValues(defs, body.variables);
  if ('problems' in checked) problems.push(...checked.problems);
  if (problems.length || !('values' in checked))
    throw templateErrors.variables_invalid(
      `${problems.length} field${problems.length === 1 ? ' is' : 's are'} wrong:\n${problems.map((x) => `- ${x}`).join('\n')}`,
    );
  const { values } = checked;

  const data = { ...renderData(defs, values), clause: Object.fromEntries(chosen.map((c) => [c.type, fillPosition(c.position, values)])) };
  const rendered = renderTemplate(new PizZip(v.docx), data);
  let pdf: Buffer;
  try {
    pdf = await docxToPdf(rendered.docx, s.config);
  } catch (err) {
    if (err instanceof PdfRenderError) throw templateErrors.pdf_render_failed(err.message);
    throw err;
  }

  const title = body.title ?? t.name;
  const contractId = new Types.ObjectId();
  const written: Array<{ _id: Types.ObjectId; storage_path: string }> = [];
  try {
    const docx = await storeFile(s, p, contractId, rendered.docx, `${title}.docx`, MIME.docx);
    written.push(docx);
    const pdfDoc = await storeFile(s, p, contractId, pdf, `${title}.pdf`, MIME.pdf);
    written.push(pdfDoc);
    const drafted: DraftedVersion & { _id: Types.ObjectId } = {
      _id: contractId,
      template: { id: t._id, version: v.number, name: t.name },
      clauses: chosen.map((c) => ({
        type: c.type,
        clause_id: c.clause._id,
        version: c.clause.version,
        position: c.index,
        needs_approval: c.position.needs_approval,
        approval_policy_id: c.position.approval_policy_id ? new Types.ObjectId(String(c.position.approval_policy_id)) : null,
      })),
      docx_document_id: docx._id,
    };
    const { template_id: _t, variables: _v, clauses: _c, ...fields } = body;
    const contract = await createContract(
      s,
      p,
      { ...fields, title, type: t.contract_type as ContractType, content: rendered.text, document_id: pdfDoc.id },
      drafted,
    );
    written.length = 0;
    await recordTemplateTerms(s, contract, { ...termsOfClauses(chosen), ...termsOfValues(defs, values) });
    const approval = chosen.some((c) => c.position.needs_approval) ? await startApproval(s, p, contract.id) : null;
    return { contract, approval };
  } finally {
    for (const d of written) {
      await Document.deleteOne({ _id: d._id }).catch(() => undefined);
      await rm(d.storage_path, { force: true });
    }
  }
}
