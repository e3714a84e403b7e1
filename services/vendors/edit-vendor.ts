/**
 * Writing vendors: create and update from allow-listed bodies (organization, score,
 * assessment and author never come from input), and delete, which unlinks the vendor's
 * contracts.
 */
import { Types } from 'mongoose';
import { z } from 'zod';
import type { Principal } from '../../platform/security/principal';
import { choice, requiredText } from '../../platform/input';
import { orgFilter } from '../../models/base';
import { Contract } from '../../models/contract';
import { VENDOR_STATUSES, Vendor, type VendorDoc } from '../../models/vendor';
import { emitVendorEvent } from './vendor-events';
import { getVendor } from './list-vendors';
import { supersedeApprovalsOfVendor } from '../contracts/supersede-approvals';
import type { Engines } from '../../platform/engines';
import type { EventRecorder } from '../../platform/outbox/record-event';
import { makeContractsSearchable } from '../search/reflect-contracts';

const optionalText = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).nullable();

const editable = {
  name: requiredText(300),
  contact_name: optionalText(300),
  contact_email: z.email('must be an email address').max(254).nullable(),
  contact_phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ().-]{5,30}$/, 'must be a phone number of digits, spaces, ( ) . - and an optional leading +')
    .refine((v) => v.replace(/\D/g, '').length >= 5, 'must have at least 5 digits')
    .nullable(),
  category: optionalText(100),
  website: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2048)
    .nullable(),
  notes: optionalText(10_000),
  status: choice(VENDOR_STATUSES),
};

export const createVendorBody = z.object(editable).partial().required({ name: true });
export const updateVendorBody = z.object(editable).partial();

export async function createVendor(s: EventRecorder, p: Principal, body: z.infer<typeof createVendorBody>): Promise<VendorDoc> {
  const vendor = await Vendor.create({
    ...body,
    organization_id: new Types.ObjectId(p.organizationId),
    created_by: new Types.ObjectId(p.userId),
  });
  await emitVendorEvent(s, p, 'vendor.created', vendor, `Vendor "${vendor.name}" added`);
  return vendor;
}

export async function updateVendor(p: Principal, vendorId: unknown, body: z.infer<typeof updateVendorBody>): Promise<VendorDoc> {
  const vendor = await getVendor(p, vendorId);
  vendor.set(body);
  const renamed = vendor.isModified('name');
  await vendor.save();
  if (renamed) await supersedeApprovalsOfVendor(vendor);
  return vendor;
}

export async function deleteVendor(s: Engines, p: Principal, vendorId: unknown): Promise<void> {
  const vendor = await getVendor(p, vendorId);
  await vendor.deleteOne();
  // Contracts outlive their vendor; the dangling link is cleared, in their search documents too.
  const linked = { ...orgFilter(p.organizationId), vendor_id: vendor._id };
  const contracts = await Contract.find(linked, { _id: 1 }).lean();
  await Contract.updateMany(linked, { $set: { vendor_id: null } });
  await makeContractsSearchable(
    s,
    p.organizationId,
    contracts.map((c) => c._id.toHexString()),
  );
}
