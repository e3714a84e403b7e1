/**
 * Writing contracts: create and update from allow-listed bodies (organization, score,
 * author and signing time never come from input), checks that references stay inside
 * the organization (deleting one: services/contract-deletion/delete-contract.ts).
 */
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { badRequest } from '../../platform/errors';
import { findOwned } from '../../platform/find-owned';
import { choice, idSchema, requiredText } from '../../platform/input';
import { inOrg } from '../../models/base';
import { CONTRACT_STATUSES, CONTRACT_TYPES, Contract, type ContractDoc } from '../../models/contract';
import { Document } from '../../models/document';
import { Vendor } from '../../models/vendor';
import { emitContractEvent } from './contract-events';
import { refuseChangeWhileSigning } from './pending-signature';
import { supersedeApprovalsOfOtherFacts } from './supersede-approvals';
import { authorOf, recordContractVersion, type DraftedVersion, type WordOfVersion } from './contract-versions';
import { makeSearchable } from '../search/reflect-contracts';
import { getContract } from './get-contract';

const date = z.iso.date('must be a date YYYY-MM-DD').transform((d) => new Date(`${d}T00:00:00Z`));

const editable = {
  title: requiredText(300),
  counterparty: requiredText(300),
  party_name: requiredText(300),
  content: z.string().max(500_000, 'must be at most 500000 characters'),
  vendor_id: idSchema.nullable(),
  document_id: idSchema.nullable(),
  value: z.number('must be a number').min(0, 'must not be negative').nullable(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'),
  start_date: date.nullable(),
  end_date: date.nullable(),
};

export const createContractBody = z
  .object({
    ...editable,
    type: choice(CONTRACT_TYPES),
  })
  .partial()
  .required({ title: true, type: true, counterparty: true });

export const updateContractBody = z
  .object({
    ...editable,
    type: choice(CONTRACT_TYPES),
    status: choice(CONTRACT_STATUSES),
    version_note: z.string().trim().max(1000, 'must be at most 1000 characters'),
  })
  .partial();

/** Fields whose change makes a new version. */
const VERSIONED = ['content', 'document_id'];
/** Fields approval policies read (contract-facts.ts): a change supersedes the approvals judged on them. */
const FACTS = ['type', 'value', 'currency', 'counterparty', 'vendor_id'];

export function checkDates(c: { start_date?: Date | null; end_date?: Date | null }) {
  if (c.start_date && c.end_date && c.end_date < c.start_date) throw badRequest('end_date: must not be before start_date');
}

/** A PDF of record must be an uploaded PDF of the same organization. */
async function checkDocument(p: Principal, documentId: string | null | undefined) {
  if (!documentId) return;
  const doc = await findOwned(Document, p, documentId, 'Document', { projection: { mime_type: 1 } });
  if (doc.mime_type !== 'application/pdf') throw badRequest('document_id: the PDF of record must be a PDF document');
}

async function checkVendor(p: Principal, vendorId: string | null | undefined) {
  if (!vendorId) return;
  if (!(await Vendor.exists(inOrg(p.organizationId, vendorId)!))) throw badRequest('vendor_id: no such vendor');
}

/** Creates a draft; one drafted from a template comes with its id (its documents name it) and what its version records. */
export async function createContract(
  s: Engines,
  p: Principal,
  body: z.infer<typeof createContractBody>,
  drafted?: DraftedVersion & { _id: Types.ObjectId },
): Promise<ContractDoc> {
  checkDates(body);
  await checkVendor(p, body.vendor_id);
  await checkDocument(p, body.document_id);
  const contract = await Contract.create({
    ...body,
    ...drafted,
    organization_id: new Types.ObjectId(p.organizationId),
    status: 'draft',
    created_by: new Types.ObjectId(p.userId),
  });
  const { _id: _ignored, ...recorded } = drafted ?? {};
  await recordContractVersion(contract, authorOf(p), { first: true, ...(drafted ? { drafted: recorded as DraftedVersion } : {}) });
  const event = await emitContractEvent(s, p, 'contract.created', contract, `Contract "${contract.title}" created`);
  await makeSearchable(s, event);
  return contract;
}

/** A member's update of a contract of the organization (applyContractChanges). */
export async function updateContract(
  s: Engines,
  p: Principal,
  contractId: unknown,
  body: z.infer<typeof updateContractBody>,
): Promise<ContractDoc> {
  return applyContractChanges(s, p, await getContract(p, contractId), body);
}

/**
 * Applies the changes; `contract.updated` names the fields that really changed, and none is sent for none.
 * A change of the text of record makes a new version (a restore and a Word file always do).
 */
export async function applyContractChanges(
  s: Engines,
  p: Principal,
  contract: ContractDoc,
  { version_note, ...body }: z.infer<typeof updateContractBody>,
  restoredFrom?: number,
  word?: WordOfVersion,
): Promise<ContractDoc> {
  await checkVendor(p, body.vendor_id);
  await checkDocument(p, body.document_id);
  contract.set(body);
  checkDates(contract);
  const changed = contract.modifiedPaths();
  await refuseChangeWhileSigning(
    contract,
    changed.filter((f) => VERSIONED.includes(f) || FACTS.includes(f)),
  );
  await contract.save();
  if (restoredFrom !== undefined || word || changed.some((f) => VERSIONED.includes(f)))
    await recordContractVersion(contract, authorOf(p), { note: version_note, restoredFrom, word });
  if (changed.some((f) => FACTS.includes(f))) await supersedeApprovalsOfOtherFacts(contract);
  if (changed.length)
    await makeSearchable(
      s,
      await emitContractEvent(s, p, 'contract.updated', contract, `Contract "${contract.title}" updated`, { changed_fields: changed }),
    );
  return contract;
}
