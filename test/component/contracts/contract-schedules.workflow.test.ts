import { expect } from 'chai';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startTimeSkippingWorker } from '../../support/time-skipping';
import { createContractActivities } from '../../../activities/contracts';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { Event, type EventType } from '../../../models/event';
import { ensureSchedules, scheduleId } from '../../../services/contracts/schedules';
import { taskQueueOf } from '../../../platform/temporal/task-queues';
import { contractExpirySweepWorkflow, renewalRemindersWorkflow } from '../../../workflows/contract-schedules';

const DAY_MS = 86400000;
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);

async function activeContract(u: TestUser, body: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: 'Office lease', type: 'lease', counterparty: 'Landlord plc', ...body },
  });
  expect(res.status, res.text).to.equal(201);
  expect((await api('PUT', `/contracts/${res.body.id}`, { token: u.token, body: { status: 'active' } })).status).to.equal(200);
  return res.body.id;
}

/** Runs a sweep on the test worker, as its schedule would, and returns how many contracts it handled. */
function run(workflow: typeof contractExpirySweepWorkflow) {
  const { services, config } = testEnv();
  return services.temporal.workflow.execute(workflow, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowId: `test-${workflow.name}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    args: [{}],
  });
}

const eventsOf = (contractId: string, type: EventType) => Event.find({ resource_id: contractId, type }).sort({ occurred_at: 1 }).lean();

describe('contract schedules (dev server)', function () {
  this.timeout(180000);

  it('the expiry sweep expires active contracts past their end date once, with one contract.updated each', async () => {
    const owner = await signUp();
    const ended = await activeContract(owner, { start_date: day(-400), end_date: day(-1) });
    const endsToday = await activeContract(owner, { end_date: day(0) });
    const draft = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Draft', type: 'nda', counterparty: 'X', end_date: day(-5) },
    });
    const before = (await eventsOf(ended, 'contract.updated')).length; // the PUT to active

    expect(await run(contractExpirySweepWorkflow)).to.be.at.least(1);
    const got = await api<{ status: string }>('GET', `/contracts/${ended}`, { token: owner.token });
    expect(got.body.status).to.equal('expired');
    expect((await api<{ status: string }>('GET', `/contracts/${endsToday}`, { token: owner.token })).body.status).to.equal('active');
    expect((await api<{ status: string }>('GET', `/contracts/${draft.body.id}`, { token: owner.token })).body.status).to.equal('draft');

    const events = await eventsOf(ended, 'contract.updated');
    expect(events).to.have.length(before + 1);
    const expiry = events.at(-1)!;
    expect(expiry.organization_id.toHexString()).to.equal(owner.organizationId);
    expect(expiry.data).to.deep.equal({
      id: ended,
      title: 'Office lease',
      type: 'lease',
      status: 'expired',
      counterparty: 'Landlord plc',
      changed_fields: ['status'],
    });
    expect(expiry.actor).to.include({ type: 'system' });

    // A second run finds nothing left to do for this contract.
    await run(contractExpirySweepWorkflow);
    expect(await eventsOf(ended, 'contract.updated')).to.have.length(before + 1);
    const feed = await api<{ activities: Array<{ type: string; resource_id: string; summary: string }> }>(
      'GET',
      '/analytics/activity?type=contract.updated',
      { token: owner.token },
    );
    expect(feed.body.activities.filter((a) => a.resource_id === ended && a.summary.includes('expired'))).to.have.length(1);
  });

  it('renewal reminders record contract.renewal_due once per contract and end date within the window', async () => {
    const owner = await signUp();
    const { config } = testEnv();
    const soon = await activeContract(owner, { end_date: day(10) });
    const later = await activeContract(owner, { end_date: day(config.RENEWAL_REMINDER_DAYS + 10) });

    expect(await run(renewalRemindersWorkflow)).to.be.at.least(1);
    const first = await eventsOf(soon, 'contract.renewal_due');
    expect(first).to.have.length(1);
    expect(first[0]!.organization_id.toHexString()).to.equal(owner.organizationId);
    expect(first[0]!.data).to.deep.include({ id: soon, status: 'active', end_date: day(10), days_until_end: 10 });
    expect(first[0]!.summary).to.contain(day(10));
    expect(await eventsOf(later, 'contract.renewal_due')).to.have.length(0);

    await run(renewalRemindersWorkflow);
    expect(await eventsOf(soon, 'contract.renewal_due')).to.have.length(1);

    // A new end date is a new renewal: reminded again, once.
    expect((await api('PUT', `/contracts/${soon}`, { token: owner.token, body: { end_date: day(12) } })).status).to.equal(200);
    await run(renewalRemindersWorkflow);
    await run(renewalRemindersWorkflow);
    const after = await eventsOf(soon, 'contract.renewal_due');
    expect(after.map((e) => (e.data as { end_date: string }).end_date)).to.deep.equal([day(10), day(12)]);
    const feed = await api<{ activities: Array<{ type: string; resource_id: string }> }>(
      'GET',
      '/analytics/activity?type=contract.renewal_due',
      { token: owner.token },
    );
    expect(feed.body.activities.map((a) => a.resource_id)).to.deep.equal([soon, soon]);
  });

  describe('schedules', () => {
    // The test worker does not run workers/worker.ts main(); the same call makes them here.
    const ids = () =>
      ['contract-expiry-sweep', 'renewal-reminders'].map((n) => scheduleId(n as 'renewal-reminders', testEnv().config.TEMPORAL_TASK_QUEUE));
    after(async () => {
      for (const id of ids())
        await testEnv()
          .services.temporal.schedule.getHandle(id)
          .delete()
          .catch((err: unknown) => {
            if (!(err instanceof ScheduleNotFoundError)) throw err;
          });
    });

    it('are created at worker start, idempotently, daily with overlap SKIP and a catch-up window, and run the sweep', async () => {
      const { services, config } = testEnv();
      expect(await ensureSchedules(services.temporal, config)).to.deep.equal(ids());
      expect(await ensureSchedules(services.temporal, config)).to.deep.equal(ids());

      const described = await Promise.all(ids().map((id) => services.temporal.schedule.getHandle(id).describe()));
      expect(described.map((d) => d.action.workflowType)).to.deep.equal(['contractExpirySweepWorkflow', 'renewalRemindersWorkflow']);
      for (const d of described) {
        // Background sweeps: on the bulk queue, which the test worker serves too.
        expect(d.action.taskQueue).to.equal(taskQueueOf(config, 'bulk'));
        expect(d.policies.overlap).to.equal('SKIP');
        expect(d.policies.catchupWindow).to.equal(DAY_MS);
        expect(d.state.paused).to.equal(false);
        expect(d.spec.calendars).to.have.length(1);
        expect(d.spec.calendars![0]!.dayOfMonth).to.deep.equal([{ start: 1, end: 31, step: 1 }]);
      }

      // Triggered now, the expiry schedule's run expires a contract on the test worker.
      const owner = await signUp();
      const ended = await activeContract(owner, { end_date: day(-2) });
      const expiry = services.temporal.schedule.getHandle(ids()[0]!);
      await expiry.trigger();
      let runId: string | undefined;
      for (let i = 0; i < 60 && !runId; i++) {
        runId = (await expiry.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!runId) await new Promise((r) => setTimeout(r, 500));
      }
      expect(runId).to.match(/^contract-expiry-sweep@/);
      await services.temporal.workflow.getHandle(runId!).result();
      expect((await api<{ status: string }>('GET', `/contracts/${ended}`, { token: owner.token })).body.status).to.equal('expired');
    });
  });
});

/**
 * The expiry sweep in workflow time: the time-skipping test server has no Schedules API
 * ("Failed to create schedule"), so this runs the sweep as the schedule's action would
 * after two skipped days, against the real store, and checks it uses the workflow's clock.
 */
describe('contract expiry sweep (time-skipping)', function () {
  this.timeout(180000);
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;
  const taskQueue = 'contract-sweeps-test';

  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, createContractActivities(testEnv().services)));
  });
  after(() => stop?.());

  it('a contract ending tomorrow is left alone today and expired by the sweep two days later', async () => {
    const owner = await signUp();
    const endsTomorrow = await activeContract(owner, { end_date: day(1) });
    const sweep = () =>
      env.client.workflow.execute(contractExpirySweepWorkflow, { taskQueue, workflowId: `sweep-${Math.random()}`, args: [{}] });

    await sweep();
    expect((await api<{ status: string }>('GET', `/contracts/${endsTomorrow}`, { token: owner.token })).body.status).to.equal('active');

    await env.sleep('2 days');
    await sweep();
    expect((await api<{ status: string }>('GET', `/contracts/${endsTomorrow}`, { token: owner.token })).body.status).to.equal('expired');
    expect(await eventsOf(endsTomorrow, 'contract.updated')).to.have.length(2); // the PUT to active, then the expiry
  });
});
