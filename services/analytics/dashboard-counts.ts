/** The dashboard: the organization's records counted by status (or risk level), by aggregation in the store. */
import type { Model } from 'mongoose';
import { orgFilter } from '../../models/base';
import { ComplianceTask } from '../../models/compliance-task';
import { Contract } from '../../models/contract';
import { Signature } from '../../models/signature';
import { Vendor } from '../../models/vendor';

/** Record counts by one field, computed by the store. */
async function countBy(model: Pick<Model<unknown>, 'aggregate'>, organizationId: string, field: string): Promise<Map<unknown, number>> {
  const rows = await model.aggregate<{ _id: unknown; n: number }>([
    { $match: orgFilter(organizationId) },
    { $group: { _id: `$${field}`, n: { $sum: 1 } } },
  ]);
  return new Map(rows.map((r) => [r._id, r.n]));
}

const sum = (counts: Map<unknown, number>, keys?: readonly unknown[]) =>
  [...counts].reduce((a, [k, n]) => a + (!keys || keys.includes(k) ? n : 0), 0);

export async function dashboardCounts(organizationId: string) {
  const [contracts, signatures, tasks, vendors] = await Promise.all([
    countBy(Contract, organizationId, 'status'),
    countBy(Signature, organizationId, 'status'),
    countBy(ComplianceTask, organizationId, 'status'),
    countBy(Vendor, organizationId, 'risk_level'),
  ]);
  // Every signature request is sent when it is created.
  const sent = sum(signatures);
  const completed = signatures.get('completed') ?? 0;
  return {
    contracts: {
      total: sum(contracts),
      active: contracts.get('active') ?? 0,
      draft: contracts.get('draft') ?? 0,
      expired: contracts.get('expired') ?? 0,
    },
    signatures: { total_sent: sent, completed, pending: signatures.get('pending') ?? 0, completion_rate: sent ? completed / sent : 0 },
    compliance: { tasks_pending: sum(tasks, ['pending', 'in_progress']), tasks_resolved: tasks.get('resolved') ?? 0 },
    vendors: { total: sum(vendors), high_risk: sum(vendors, ['high', 'critical']) },
  };
}
