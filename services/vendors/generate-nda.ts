/** A mutual NDA with a vendor, drafted by the AI: a new draft contract linked to the vendor. */
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { requiredText } from '../../platform/input';
import { Contract, type ContractDoc } from '../../models/contract';
import { getVendor } from './list-vendors';
import { emitContractEvent } from '../contracts/contract-events';
import { draftText } from '../contracts/contract-ai';
import { authorOf, recordContractVersion } from '../contracts/contract-versions';
import { makeSearchable } from '../search/reflect-contracts';

export const ndaBody = z.object({
  party_name: requiredText(300),
  duration_years: z
    .number('must be a number')
    .int('must be a whole number of years')
    .min(1, 'must be at least 1')
    .max(20, 'must be at most 20')
    .default(2),
});

export async function generateNda(s: Engines, p: Principal, vendorId: unknown, body: z.infer<typeof ndaBody>): Promise<ContractDoc> {
  const vendor = await getVendor(p, vendorId);
  const term = `${body.duration_years} year${body.duration_years === 1 ? '' : 's'}`;
  const title = `Mutual NDA with ${vendor.name}`;
  const content = await draftText(s, { type: 'nda', title, partyName: body.party_name, counterparty: vendor.name, term });
  const contract = await Contract.create({
    organization_id: new Types.ObjectId(p.organizationId),
    title,
    type: 'nda',
    status: 'draft',
    counterparty: vendor.name,
    party_name: body.party_name,
    content,
    vendor_id: vendor._id,
    created_by: new Types.ObjectId(p.userId),
  });
  await recordContractVersion(contract, authorOf(p), { first: true });
  const event = await emitContractEvent(s, p, 'contract.created', contract, `NDA "${title}" generated for vendor "${vendor.name}"`, {
    vendor_id: vendor.id,
  });
  await makeSearchable(s, event);
  return contract;
}
