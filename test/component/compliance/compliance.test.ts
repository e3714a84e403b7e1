import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { startReceiver } from '../../support/receiver';
import { testEnv } from '../../support/env';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Types } from 'mongoose';
import { createComplianceActivities } from '../../../activities/compliance';
import { ComplianceScan } from '../../../models/compliance-scan';
import { ComplianceTask } from '../../../models/compliance-task';
import { Event } from '../../../models/event';

interface Task {
  id: string;
  title: string;
  description: string;
  priority: string;
  status: string;
  due_date: string;
  contract_id: string;
  contract_title: string;
  regulation_type: string;
  jurisdiction: string;
  rule_id: string;
  resolved_at: string | null;
}
interface TaskList {
  tasks: Task[];
  total: number;
  page: number;
  page_size: number;
}
interface Scan {
  scan_id: string;
  status: string;
  contracts_scanned: number;
  tasks_created: number;
  started_at: string;
  completed_at: string | null;
  workflow_id: string;
}
interface Dashboard {
  summary: { total_tasks: number; total: number; pending: number; in_progress: number; resolved: number; overdue: number };
  by_priority: Record<string, number>;
  by_regulation: Record<string, number>;
}

const EU_PROCESSING =
  "The Supplier shall host the CRM and process personal data of the Customer's clients located in the European Union on behalf of the Customer.";
const EU_TERMS =
  ' The parties agree to the Data Processing Addendum in Schedule 2. The Supplier shall notify the Customer of any personal data breach without undue delay.';

async function createContract(u: TestUser, title: string, content: string, status = 'draft'): Promise<string> {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title, type: 'service_agreement', counterparty: 'Acme GmbH', content },
  });
  expect(res.status, res.text).to.equal(201);
  if (status !== 'draft')
    expect((await api('PUT', `/contracts/${res.body.id}`, { token: u.token, body: { status } })).status).to.equal(200);
  return res.body.id;
}

/** Starts a scan and waits until the workflow finished it. */
async function scan(u: TestUser, body: Record<string, unknown>): Promise<Scan> {
  const started = await api<{ scan_id: string; workflow_id: string; status: string }>('POST', '/compliance/scan', { token: u.token, body });
  expect(started.status, started.text).to.equal(202);
  expect(started.body.status).to.equal('running');
  expect(started.body.workflow_id).to.equal(`compliance-scan-${started.body.scan_id}`);
  const deadline = Date.now() + 60000;
  for (;;) {
    const res = await api<Scan>('GET', `/compliance/scans/${started.body.scan_id}`, { token: u.token });
    expect(res.status).to.equal(200);
    if (res.body.status !== 'running') return res.body;
    if (Date.now() > deadline) throw new Error(`scan still running: ${res.text}`);
    // 60 polls a minute stay well under the user's request limit, even where a scan takes long.
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const tasksOf = async (u: TestUser, query = '') => {
  const res = await api<TaskList>('GET', `/compliance/tasks${query}`, { token: u.token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
};

describe('compliance', () => {
  let owner: TestUser;
  let bare: string;
  let covered: string;
  before(async () => {
    owner = await signUp();
    bare = await createContract(owner, 'EU CRM hosting', EU_PROCESSING);
    covered = await createContract(owner, 'EU CRM hosting with DPA', EU_PROCESSING + EU_TERMS);
  });

  it('a contract processing EU personal data without data-processing terms yields a GDPR/EU task; with the terms, none', async function () {
    this.timeout(150000);
    const result = await scan(owner, { scope: 'all', jurisdictions: ['EU'], contract_ids: [bare, covered] });
    expect(result).to.include({ status: 'completed', contracts_scanned: 2 });
    expect(result.completed_at).to.match(/Z$/);

    const bareTasks = (await tasksOf(owner, `?contract_id=${bare}`)).tasks;
    const gdpr = bareTasks.find((t) => t.rule_id === 'gdpr-processing-terms');
    expect(gdpr, JSON.stringify(bareTasks)).to.not.equal(undefined);
    expect(gdpr).to.include({
      regulation_type: 'GDPR',
      jurisdiction: 'EU',
      priority: 'high',
      status: 'pending',
      contract_id: bare,
      contract_title: 'EU CRM hosting',
    });
    expect(gdpr!.title).to.match(/data-processing terms/);
    // due_date = today + the rule's 14 days
    expect(gdpr!.due_date).to.equal(new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10));
    expect(result.tasks_created).to.equal(bareTasks.length);

    expect((await tasksOf(owner, `?contract_id=${covered}`)).total).to.equal(0);
  });

  it('re-scanning does not duplicate an open task; a resolved one is raised again', async function () {
    this.timeout(150000);
    const before = await tasksOf(owner);
    const again = await scan(owner, { scope: 'all', jurisdictions: ['EU'] });
    expect(again).to.include({ status: 'completed', contracts_scanned: 2, tasks_created: 0 });
    const after = await tasksOf(owner);
    expect(after.total).to.equal(before.total);

    const gdpr = after.tasks.find((t) => t.rule_id === 'gdpr-processing-terms')!;
    const resolved = await api<Task>('PUT', `/compliance/tasks/${gdpr.id}`, { token: owner.token, body: { status: 'resolved' } });
    expect(resolved.status).to.equal(200);
    const third = await scan(owner, { scope: 'all', jurisdictions: ['EU'] });
    expect(third.tasks_created).to.equal(1);
    const open = await tasksOf(owner, `?contract_id=${bare}&status=pending`);
    expect(open.tasks.filter((t) => t.rule_id === 'gdpr-processing-terms')).to.have.length(1);
    const reopen = await api('PUT', `/compliance/tasks/${gdpr.id}`, { token: owner.token, body: { status: 'pending' } });
    expect(reopen.status, reopen.text).to.equal(409);
  });

  it('the task list and the dashboard agree', async () => {
    const all = await tasksOf(owner, '?page_size=100');
    const dash = await api<Dashboard>('GET', '/compliance/dashboard', { token: owner.token });
    expect(dash.status).to.equal(200);
    const { summary, by_priority, by_regulation } = dash.body;
    expect(summary.total_tasks).to.equal(all.total).and.to.be.greaterThan(0);
    expect(summary.total).to.equal(all.total);
    for (const status of ['pending', 'in_progress', 'resolved'] as const) {
      expect(summary[status], status).to.equal((await tasksOf(owner, `?status=${status}`)).total);
    }
    expect(summary.resolved).to.equal(1);
    for (const priority of ['high', 'medium', 'low']) {
      expect(by_priority[priority], priority).to.equal((await tasksOf(owner, `?priority=${priority}`)).total);
    }
    const regulations: Record<string, number> = {};
    for (const t of all.tasks) regulations[t.regulation_type] = (regulations[t.regulation_type] ?? 0) + 1;
    expect(by_regulation).to.deep.equal(regulations);
    expect(summary.overdue).to.equal(0);
  });

  it('counts an open task past its due date as overdue', async () => {
    const task = (await tasksOf(owner, '?status=pending')).tasks[0]!;
    const res = await api<Task>('PUT', `/compliance/tasks/${task.id}`, { token: owner.token, body: { due_date: '2020-01-31' } });
    expect(res.status).to.equal(200);
    expect(res.body.due_date).to.equal('2020-01-31');
    const dash = await api<Dashboard>('GET', '/compliance/dashboard', { token: owner.token });
    expect(dash.body.summary.overdue).to.equal(1);
  });

  it('updates with role rules: members update and resolve, viewers get 403, another organization gets 404', async () => {
    const member = await addMember(owner, 'member');
    const viewer = await addMember(owner, 'viewer');
    const task = (await tasksOf(owner, '?status=pending')).tasks[0]!;

    const progress = await api<Task>('PUT', `/compliance/tasks/${task.id}`, {
      token: member.token,
      body: { status: 'in_progress', priority: 'low' },
    });
    expect(progress.status, progress.text).to.equal(200);
    expect(progress.body).to.include({ status: 'in_progress', priority: 'low', resolved_at: null, title: task.title });
    const done = await api<Task>('PUT', `/compliance/tasks/${task.id}`, { token: member.token, body: { status: 'resolved' } });
    expect(done.body.status).to.equal('resolved');
    expect(done.body.resolved_at).to.match(/Z$/);
    const reopened = await api<Task>('PUT', `/compliance/tasks/${task.id}`, { token: member.token, body: { status: 'pending' } });
    expect(reopened.body.resolved_at).to.equal(null);

    expect((await api('PUT', `/compliance/tasks/${task.id}`, { token: viewer.token, body: { status: 'resolved' } })).status).to.equal(403);
    expect((await api('GET', '/compliance/tasks', { token: viewer.token })).status).to.equal(200);
    expect((await api('POST', '/compliance/scan', { token: viewer.token, body: { jurisdictions: ['EU'] } })).status).to.equal(403);

    const other = await signUp();
    expect((await api('PUT', `/compliance/tasks/${task.id}`, { token: other.token, body: { status: 'resolved' } })).status).to.equal(404);
    expect((await tasksOf(other)).total).to.equal(0);
    expect((await api('PUT', '/compliance/tasks/not-an-id', { token: owner.token, body: { status: 'resolved' } })).status).to.equal(404);
  });

  it('rejects bad input with 400 and foreign ids with 404', async () => {
    const bad = async (path: string, method: string, body: unknown, detail: RegExp) => {
      const res = await api<{ detail: string }>(method, path, { token: owner.token, body });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.detail).to.match(detail);
    };
    await bad('/compliance/scan', 'POST', { scope: 'all', jurisdictions: ['MARS'] }, /^jurisdictions\.0: must be one of EU/);
    await bad('/compliance/scan', 'POST', { scope: 'some', jurisdictions: ['EU'] }, /^scope: must be one of all, active/);
    await bad('/compliance/scan', 'POST', { jurisdictions: [] }, /^jurisdictions: must name at least one/);
    await bad('/compliance/scan', 'POST', { jurisdictions: 'EU' }, /^jurisdictions: /);
    await bad('/compliance/scan', 'POST', { jurisdictions: ['EU'], contract_ids: [{ $gt: '' }] }, /^contract_ids\.0: /);
    const task = (await tasksOf(owner)).tasks[0]!;
    await bad(`/compliance/tasks/${task.id}`, 'PUT', { status: 'done' }, /^status: must be one of pending, in_progress, resolved/);
    await bad(`/compliance/tasks/${task.id}`, 'PUT', { due_date: '2025-02-30' }, /^due_date: /);
    expect((await api('GET', '/compliance/tasks?priority=urgent', { token: owner.token })).status).to.equal(400);
    expect((await api('GET', '/compliance/tasks?page=0', { token: owner.token })).status).to.equal(400);

    const other = await signUp();
    const foreign = await api('POST', '/compliance/scan', { token: other.token, body: { jurisdictions: ['EU'], contract_ids: [bare] } });
    expect(foreign.status).to.equal(404);
    const mine = await api<{ scan_id: string }>('POST', '/compliance/scan', {
      token: owner.token,
      body: { jurisdictions: ['US'], contract_ids: [covered] },
    });
    expect((await api('GET', `/compliance/scans/${mine.body.scan_id}`, { token: other.token })).status).to.equal(404);
  });

  it('scope active scans only active contracts', async function () {
    this.timeout(150000);
    const org = await signUp();
    await createContract(org, 'Draft PHI deal', 'The clinic shares patient records with the Vendor.');
    const active = await createContract(org, 'Active PHI deal', 'The clinic shares patient records with the Vendor.', 'active');
    const result = await scan(org, { scope: 'active', jurisdictions: ['US'] });
    expect(result).to.include({ status: 'completed', contracts_scanned: 1, tasks_created: 1 });
    const [task] = (await tasksOf(org)).tasks;
    expect(task).to.include({ contract_id: active, regulation_type: 'HIPAA', jurisdiction: 'US', rule_id: 'hipaa-business-associate' });
  });

  it('emits compliance.alert per new task to a subscribed webhook receiver', async function () {
    this.timeout(150000);
    const org = await signUp();
    const receiver = await startReceiver(() => 200);
    try {
      const sub = await api('POST', '/webhooks/subscribe', {
        token: org.token,
        body: { url: `${receiver.url}/hooks`, events: ['compliance.alert'], secret: 'receiver-shared-secret-0123456789' },
      });
      expect(sub.status, sub.text).to.equal(201);
      const id = await createContract(org, 'Card processing', "The Processor stores cardholder data of the Merchant's customers.");
      const result = await scan(org, { jurisdictions: ['EU'] });
      expect(result.tasks_created).to.equal(1);
      const [req] = await receiver.waitFor(1);
      expect(req!.headers['x-service-event']).to.equal('compliance.alert');
      const payload = JSON.parse(req!.body) as { event: string; data: Record<string, unknown> };
      const [task] = (await tasksOf(org)).tasks;
      expect(payload.event).to.equal('compliance.alert');
      expect(payload.data).to.include({
        task_id: task!.id,
        title: task!.title,
        priority: 'high',
        regulation_type: 'Industry Specific',
        jurisdiction: 'GLOBAL',
        contract_id: id,
        contract_title: 'Card processing',
        due_date: task!.due_date,
        rule_id: 'pci-dss-cardholder-data',
      });
      // A re-scan raises nothing new, so nothing more is delivered.
      await scan(org, { jurisdictions: ['EU'] });
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.received).to.have.length(1);
    } finally {
      await receiver.close();
    }
  });

  it('a retried scan step creates the task and its alert once', async function () {
    this.timeout(150000);
    const org = await signUp();
    const contractId = await createContract(
      org,
      'Ledger outsourcing',
      'The Vendor maintains the general ledger and prepares financial statements.',
    );
    const scan = await ComplianceScan.create({
      organization_id: new Types.ObjectId(org.organizationId),
      scope: 'all',
      jurisdictions: ['US'],
    });
    const activities = createComplianceActivities(testEnv().services);
    const scanBatch = (input: Parameters<typeof activities.scanBatch>[0]) => activities.scanBatch(input);
    const step = { scanId: scan.id, afterId: null, scannedBefore: 0, limit: 25 };
    // The same step twice, as Temporal does when an attempt's result was lost.
    const first = await new MockActivityEnvironment().run(scanBatch, step);
    const second = await new MockActivityEnvironment().run(scanBatch, step);
    expect(second).to.deep.equal(first);
    expect(first).to.deep.equal({ afterId: contractId, scanned: 1, done: true });
    const tasks = await ComplianceTask.find({ organization_id: scan.organization_id }).lean();
    expect(tasks.map((t) => t.rule_id).sort()).to.deep.equal(['sox-audit-rights', 'sox-record-retention']);
    const alerts = await Event.countDocuments({ organization_id: scan.organization_id, type: 'compliance.alert' });
    expect(alerts).to.equal(2);
    expect(await ComplianceScan.findById(scan._id).lean()).to.include({ contracts_scanned: 1, tasks_created: 2 });
  });

  it('two scans running at once leave one open task per contract and rule, alerted once', async function () {
    this.timeout(150000);
    const org = await signUp();
    const organization_id = new Types.ObjectId(org.organizationId);
    for (let i = 0; i < 5; i++)
      await createContract(org, `Clinic ${i}`, 'The clinic shares patient records and cardholder data with the Vendor.');
    const activities = createComplianceActivities(testEnv().services);
    const scans = await ComplianceScan.create([
      { organization_id, scope: 'all', jurisdictions: ['US'] },
      { organization_id, scope: 'all', jurisdictions: ['US'] },
    ]);
    await Promise.all(
      scans.map((scan) =>
        new MockActivityEnvironment().run((input: Parameters<typeof activities.scanBatch>[0]) => activities.scanBatch(input), {
          scanId: scan.id,
          afterId: null,
          scannedBefore: 0,
          limit: 25,
        }),
      ),
    );
    const tasks = await ComplianceTask.find({ organization_id }).lean();
    expect(tasks).to.have.length(10);
    expect(new Set(tasks.map((t) => `${t.contract_id.toHexString()}:${t.rule_id}`)).size).to.equal(10);
    expect(await Event.countDocuments({ organization_id, type: 'compliance.alert' })).to.equal(10);
  });
});
