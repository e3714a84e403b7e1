/**
 * Starting a compliance scan: the scan record, then its workflow `compliance-scan-<scanId>`,
 * which writes its progress and outcome on the record.
 */
import { trusted, Types } from 'mongoose';
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { choice, objectId, oneOf } from '../../platform/input';
import { newWorkflowRecord, startWorkflowOrDiscard } from '../../platform/temporal/client';
import { orgFilter } from '../../models/base';
import { ComplianceScan, SCAN_SCOPES, type ComplianceScanDoc } from '../../models/compliance-scan';
import { Contract } from '../../models/contract';
import { complianceScan, complianceScanWorkflowId } from '../../workflows/compliance-scan.shared';
import { JURISDICTIONS } from './rules';

const MAX_SCAN_CONTRACTS = 500;

export const scanBody = z.object({
  scope: choice(SCAN_SCOPES).default('all'),
  jurisdictions: z
    .array(
      z.string().refine((j) => JURISDICTIONS.includes(j), oneOf(JURISDICTIONS)),
      'must be an array of jurisdiction codes',
    )
    .min(1, 'must name at least one jurisdiction')
    .max(JURISDICTIONS.length * 2, 'has too many entries')
    .default([...JURISDICTIONS]),
  contract_ids: z
    .array(objectId('must be contract ids'), 'must be an array of contract ids')
    .min(1, 'must not be empty when given')
    .max(MAX_SCAN_CONTRACTS, `must have at most ${MAX_SCAN_CONTRACTS} ids`)
    .optional(),
});

/** Named contracts must all be the organization's (404 otherwise); a scan the engine cannot start is not kept (503). */
export async function startComplianceScan(s: Engines, p: Principal, body: z.infer<typeof scanBody>): Promise<ComplianceScanDoc> {
  const contractIds = body.contract_ids && [...new Set(body.contract_ids)].map((id) => new Types.ObjectId(id));
  if (contractIds) {
    const found = await Contract.countDocuments({ ...orgFilter(p.organizationId), _id: trusted({ $in: contractIds }) });
    if (found !== contractIds.length) throw notFound('Contract');
  }
  const ids = newWorkflowRecord(complianceScanWorkflowId);
  const scan = await ComplianceScan.create({
    ...ids,
    organization_id: new Types.ObjectId(p.organizationId),
    scope: body.scope,
    jurisdictions: [...new Set(body.jurisdictions)],
    contract_ids: contractIds,
    created_by: new Types.ObjectId(p.userId),
  });
  await startWorkflowOrDiscard(
    s,
    complianceScan,
    { workflowId: ids.workflow_id, args: [{ scanId: scan.id }], organizationId: p.organizationId, recordId: scan.id },
    { discard: () => ComplianceScan.deleteOne({ _id: scan._id }) },
  );
  return scan;
}
