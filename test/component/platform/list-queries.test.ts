/**
 * The store queries behind every paginated list: each has a compound index on MongoDB, and
 * FerretDB's `explain` shows what the local store actually pushes down to PostgreSQL.
 */
import { expect } from 'chai';
import mongoose, { Types } from 'mongoose';
import { listQueries, type ListFilter, type ListSpec } from '../../../platform/lists/lists';
import { contractListFilter } from '../../../services/contracts/list-contracts';
import { vendorListFilter } from '../../../services/vendors/list-vendors';
import { activityFilter } from '../../../services/analytics/activity-feed';
import { contractList } from '../../../models/contract';
import { vendorList } from '../../../models/vendor';
import { documentList } from '../../../models/document';
import { signatureList } from '../../../models/signature';
import { taskList } from '../../../models/compliance-task';
import { deliveryList } from '../../../models/webhook-delivery';
import { activityList } from '../../../models/event';
import { mailList } from '../../../models/outgoing-mail';

const LISTS: ListSpec[] = [contractList, vendorList, documentList, signatureList, taskList, deliveryList, activityList, mailList];

/** A value each filter may take (the store query does not care which). */
const SAMPLE: Record<string, unknown> = {
  status: 'active',
  type: 'nda',
  risk_level: 'high',
  category: 'policy',
  priority: 'high',
  regulation_type: 'GDPR',
  contract_id: new Types.ObjectId(),
  subscription_id: new Types.ObjectId(),
};

/** Every combination of a list's equality filters, from none to all. */
function combinations(fields: readonly string[]): string[][] {
  return fields.reduce<string[][]>((all, f) => [...all, ...all.map((c) => [...c, f])], [[]]);
}

/** The queries each list's route can build: every filter combination, plus the searches. */
function queriesOf(spec: ListSpec): Array<{ name: string; filter: ListFilter }> {
  const equalities = combinations(spec.filters).map((fields) => ({
    name: fields.length ? fields.join(' + ') : 'no filter',
    filter: { equal: Object.fromEntries(fields.map((f) => [f, spec.name === 'activity' ? 'contract.created' : SAMPLE[f]])) },
  }));
  const extra: Record<string, Array<{ name: string; filter: ListFilter }>> = {
    contracts: [{ name: 'status + search', filter: contractListFilter({ status: 'completed', search: 'harbour' }) }],
    vendors: [{ name: 'status + search', filter: vendorListFilter({ status: 'active', search: 'cloud' }) }],
    activity: [{ name: 'a category of types', filter: activityFilter('contract') }],
  };
  return [...equalities, ...(extra[spec.name] ?? [])];
}

type IndexKeys = Record<string, 1 | -1>;

/**
 * An index serves a query when it starts with the organization, then one of the query's
 * equality fields (if it has any), then the list's sort field and `_id`, walked forwards or
 * backwards; the other equality fields are checked on the records it yields.
 */
function servingIndex(spec: ListSpec, equalFields: string[]): IndexKeys | undefined {
  const { field, order } = spec.sort;
  return (spec.model.schema.indexes() as Array<[IndexKeys, unknown]>)
    .map(([keys]) => keys)
    .find((keys) => {
      const names = Object.keys(keys);
      const prefix = names.slice(0, names.length - 2);
      const ordered = (keys[field] === order && keys._id === order) || (keys[field] === -order && keys._id === -order);
      return (
        ordered &&
        names.at(-2) === field &&
        names.at(-1) === '_id' &&
        prefix[0] === 'organization_id' &&
        (equalFields.length ? prefix.length === 2 && equalFields.includes(prefix[1]!) : prefix.length === 1)
      );
    });
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Filter?: string;
  'Recheck Cond'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}
interface Explained {
  filterPushdown: boolean;
  sortPushdown: boolean;
  limitPushdown: boolean;
  queryPlanner: { Plan?: PlanNode };
}

const nodesOf = (node: PlanNode | undefined): PlanNode[] => (node ? [node, ...(node.Plans ?? []).flatMap(nodesOf)] : []);

function expectPushedDown(explained: Explained, fields: string[]) {
  // FerretDB 1.24 pushes a sort down only for $natural on capped collections, and a limit
  // only with no filter, sort or skip: every page is sorted and counted in FerretDB.
  expect({ filter: explained.filterPushdown, sort: explained.sortPushdown, limit: explained.limitPushdown }).to.deep.equal({
    filter: true,
    sort: false,
    limit: false,
  });
  const nodes = nodesOf(explained.queryPlanner.Plan);
  const sql = nodes.map((n) => `${n.Filter ?? ''} ${n['Recheck Cond'] ?? ''} ${n['Index Cond'] ?? ''}`).join(' ');
  for (const field of fields) expect(sql, 'the SQL filter').to.include(`'${field}'`);
  expect(nodes.map((n) => n['Node Type'])).to.not.include('Seq Scan');
  expect(
    nodes.some((n) => n['Index Name']?.endsWith('_eq')),
    'a scan of a pushdown index',
  ).to.equal(true);
}

/** Records of an organization no test uses, so that PostgreSQL's planner sees tables worth an index. */
const FILLER_ORG = new Types.ObjectId();
const FILLER = 1000;
/** Filler in states no sweep, relay or workflow acts on. */
const inert: Record<string, Record<string, unknown>> = {
  contracts: { status: 'draft', type: 'service_agreement' },
  vendors: { status: 'inactive' },
  documents: { status: 'ready', category: 'other' },
  signatures: { status: 'cancelled' },
  'compliance-tasks': { status: 'resolved', priority: 'low', regulation_type: 'filler' },
  'webhook-deliveries': { status: 'delivered' },
  activity: { type: 'team.member_joined', relayed_at: new Date() },
};

describe('list queries', function () {
  describe('every list query has a compound index (organization, equality filter, sort field, _id)', () => {
    for (const spec of LISTS) {
      for (const fields of combinations(spec.filters)) {
        it(`${spec.name}: ${fields.length ? fields.join(' + ') : 'no filter'}`, () => {
          expect(servingIndex(spec, fields), `an index for ${spec.name} by ${fields.join(', ') || 'organization'}`).to.not.equal(undefined);
        });
      }
    }
  });

  describe('what FerretDB pushes down, by explain', function () {
    this.timeout(120000);
    before(async () => {
      for (const spec of LISTS) {
        await spec.model.init();
        const { field } = spec.sort;
        await spec.model.collection.insertMany(
          Array.from({ length: FILLER }, (_, i) => ({
            organization_id: FILLER_ORG,
            [field]: new Date(Date.UTC(2020, 0, 1) + i * 60000),
            created_at: new Date(),
            event_id: new Types.ObjectId(),
            subscription_id: new Types.ObjectId(),
            contract_id: new Types.ObjectId(),
            ...inert[spec.name],
          })),
        );
        // VACUUM ANALYZE on FerretDB: the planner then knows the filler's organization is not ours.
        await mongoose.connection.db!.command({ compact: spec.model.collection.collectionName });
      }
    });
    after(async () => {
      for (const spec of LISTS) await spec.model.collection.deleteMany({ organization_id: FILLER_ORG });
    });

    for (const spec of LISTS) {
      for (const { name, filter } of queriesOf(spec)) {
        it(`${spec.name}, ${name}: the filter goes to PostgreSQL and an index answers it; sort, skip, limit and count stay in FerretDB`, async () => {
          // Page 1: FerretDB's explain refuses the int `skip` the driver sends for later pages.
          const q = listQueries(spec, new Types.ObjectId().toHexString(), filter, { page: 1, page_size: 20 });
          const fields = ['organization_id', ...Object.keys(filter.equal ?? {})];
          expectPushedDown((await q.items.explain()) as unknown as Explained, fields);
          // countDocuments is this aggregation on the wire (mongoose's explain() would run the count instead).
          const count = spec.model.aggregate([{ $match: q.total.getFilter() }, { $group: { _id: 1, n: { $sum: 1 } } }]);
          expectPushedDown((await count.explain()) as unknown as Explained, fields);
        });
      }
    }
  });
});
