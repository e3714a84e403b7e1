/** The AI's risk assessment of a vendor, from what is known of it and its latest contracts; the score and level are stored on it. */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { orgFilter } from '../../models/base';
import { Contract } from '../../models/contract';
import { supersedeApprovalsOfVendor } from '../contracts/supersede-approvals';
import { emitVendorEvent } from './vendor-events';
import { getVendor } from './list-vendors';
import { assessVendorByRules } from './vendor-risk-rules';
import { riskLevel } from '../clauses/risk-level';

/** How many of the vendor's contracts, newest first, the assessment reads. */
const CONTRACTS_READ = 20;

export async function assessVendorRisk(s: Engines, p: Principal, vendorId: unknown) {
  const vendor = await getVendor(p, vendorId);
  const contracts = await Contract.find({ ...orgFilter(p.organizationId), vendor_id: vendor._id })
    .sort({ created_at: -1 })
    .limit(CONTRACTS_READ);
  const facts = {
    name: vendor.name,
    category: vendor.category,
    website: vendor.website,
    notes: vendor.notes,
    contracts: contracts.map((c) => ({ title: c.title, type: c.type, status: c.status, content: c.content })),
  };
  const byModel = await s.ai.assessVendor(facts);
  // One rule maps scores to levels everywhere, whatever the model answered.
  const result = byModel ? { ...byModel, risk_level: riskLevel(byModel.risk_score) } : assessVendorByRules(facts);
  vendor.set({ risk_score: result.risk_score, risk_level: result.risk_level, assessment: result.assessment, assessed_at: new Date() });
  await vendor.save();
  // The risk is a fact approval policies read: requests that covered the old one stop counting.
  await supersedeApprovalsOfVendor(vendor);
  await emitVendorEvent(
    s,
    p,
    'vendor.risk_assessed',
    vendor,
    `Vendor "${vendor.name}" assessed: risk ${result.risk_score}/100 (${result.risk_level})`,
  );
  return result;
}
