import { expect } from 'chai';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startTimeSkippingWorker } from '../../support/time-skipping';
import { createContractTermsActivities } from '../../../activities/contract-terms';
import { api } from '../../support/http';
import { signUp } from '../../support/auth';
import { testEnv } from '../../support/env';
import { Event } from '../../../models/event';
import { OutgoingMail } from '../../../models/outgoing-mail';
import { renewalDeadlineWorkflow } from '../../../workflows/renewal-deadline';
import { renewalWorkflowId, rescheduleSignal } from '../../../workflows/renewal-deadline.shared';
import { taskQueueOf } from '../../../platform/temporal/task-queues';
import { replanRenewalRuns, sendRenewalReminder } from '../../../services/contracts/renewal-deadlines';
import { ContractTerms } from '../../../models/contract-terms';
import { waitFor } from '../../support/processes';
import { Types } from 'mongoose';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const longDate = (ms: number) =>
  new Date(ms).toLocaleDateString('en-US', { timeZone: 'UTC', month: 'long', day: 'numeric', year: 'numeric' });

/** Waits (in real time) until `check` holds: an activity may still be running when a time skip returns. */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (check(v) || i >= 50) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('renewal deadline reminders (time-skipping)', function () {
  this.timeout(180000);
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;
  const taskQueue = 'renewal-deadline-test';

  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, createContractTermsActivities(testEnv().services)));
  });
  after(() => stop?.());

  it('reminds at 90, 60, 30 and 7 days before the opt-out deadline, each once, on the days an edit moved them to', async () => {
    const owner = await signUp();
    const start = Number(await env.currentTimeMs());
    const end = Date.parse(`${isoDay(start + 130 * DAY_MS)}T00:00:00Z`);
    const content = `This Agreement ends on ${longDate(end)}. It renews automatically for successive one-year terms unless either party gives notice of non-renewal at least 30 days before the end of the then-current term.`;
    const created = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Hosting', type: 'service_agreement', counterparty: 'Northwind', content },
    });
    const contractId = created.body.id;
    const extracted = await api<{ terms: Record<string, { normalized: unknown } | null> }>('POST', `/contracts/${contractId}/extract`, {
      token: owner.token,
    });
    expect(extracted.status, extracted.text).to.equal(200);
    expect(extracted.body.terms.end_date?.normalized).to.equal(isoDay(end));
    expect(extracted.body.terms.non_renewal_notice_days?.normalized).to.equal(30);

    const reminders = () => Event.find({ resource_id: contractId, type: 'contract.renewal_due' }).sort({ occurred_at: 1 }).lean();
    const handle = await env.client.workflow.start(renewalDeadlineWorkflow, {
      taskQueue,
      workflowId: `renewal-test-${contractId}`,
      args: [{ organizationId: owner.organizationId, contractId }],
    });
    await env.sleep(HOUR_MS);
    expect(await reminders()).to.have.length(0);

    // The edit: 20 days' notice instead of 30 moves the deadline ten days later.
    const oldDeadline = end - 30 * DAY_MS;
    const deadline = end - 20 * DAY_MS;
    const edited = await api('PUT', `/contracts/${contractId}/terms`, {
      token: owner.token,
      body: { terms: { non_renewal_notice_days: { value: '20 days', normalized: 20 } } },
    });
    expect(edited.status, edited.text).to.equal(200);
    await handle.signal(rescheduleSignal);

    const skipTo = async (at: number) => env.sleep(Math.max(1, at - Number(await env.currentTimeMs())));
    await skipTo(oldDeadline - 90 * DAY_MS + HOUR_MS);
    expect(await reminders(), "nothing on the old deadline's first day").to.have.length(0);

    const days = [90, 60, 30, 7];
    for (const [i, d] of days.entries()) {
      await skipTo(deadline - d * DAY_MS - HOUR_MS);
      expect(await reminders(), `not before ${d} days`).to.have.length(i);
      await skipTo(deadline - d * DAY_MS + HOUR_MS);
      const sent = await eventually(reminders, (r) => r.length === i + 1);
      expect(sent, `on the day ${d} days before`).to.have.length(i + 1);
      expect(sent[i]!.data).to.include({ id: contractId, deadline: isoDay(deadline), days_left: d, end_date: isoDay(end) });
    }

    // Nothing left to remind of: the workflow ends, and a retried activity sends none twice.
    await handle.result();
    expect(
      await sendRenewalReminder(testEnv().services, {
        organizationId: owner.organizationId,
        contractId,
        deadline: isoDay(deadline),
        days: 7,
      }),
    ).to.equal(false);
    expect((await reminders()).map((e) => (e.data as { days_left: number }).days_left)).to.deep.equal(days);
    const mail = await OutgoingMail.find({ kind: 'renewal_due', to: owner.email }).lean();
    expect(mail.map((m) => m.subject).sort()).to.deep.equal(days.map((d) => `Renewal notice due in ${d} days: Hosting`).sort());
  });

  it('ends when an edit takes the deadline away, and at once for a contract without one', async () => {
    const owner = await signUp();
    const end = longDate(Date.parse(`${isoDay(Number(await env.currentTimeMs()) + 200 * DAY_MS)}T00:00:00Z`));
    const contract = async (content: string) => {
      const created = await api<{ id: string }>('POST', '/contracts', {
        token: owner.token,
        body: { title: 'Licence', type: 'service_agreement', counterparty: 'Contoso', content },
      });
      expect((await api('POST', `/contracts/${created.body.id}/extract`, { token: owner.token })).status).to.equal(200);
      const handle = await env.client.workflow.start(renewalDeadlineWorkflow, {
        taskQueue,
        workflowId: `renewal-test-${created.body.id}`,
        args: [{ organizationId: owner.organizationId, contractId: created.body.id }],
      });
      return { contractId: created.body.id, handle };
    };

    const renewing = await contract(
      `This Agreement ends on ${end}. It renews automatically for one-year terms unless either party gives notice of non-renewal at least 30 days before the end of the then-current term.`,
    );
    await env.sleep(HOUR_MS);
    expect((await renewing.handle.describe()).status.name).to.equal('RUNNING');
    const edited = await api('PUT', `/contracts/${renewing.contractId}/terms`, {
      token: owner.token,
      body: { terms: { auto_renewal: { value: 'does not renew', normalized: false } } },
    });
    expect(edited.status, edited.text).to.equal(200);
    await renewing.handle.signal(rescheduleSignal);
    await renewing.handle.result();
    expect(await Event.countDocuments({ resource_id: renewing.contractId, type: 'contract.renewal_due' })).to.equal(0);

    const fixedTerm = await contract(`This Agreement ends on ${end}.`);
    await env.sleep(HOUR_MS);
    expect((await fixedTerm.handle.describe()).status.name).to.equal('COMPLETED');
  });
});

/** On the dev server, through the API: which contracts get a `renewal-<id>` workflow at all. */
describe('renewal deadline workflows (dev server)', function () {
  this.timeout(300000);
  const describeRenewal = (contractId: string) =>
    testEnv()
      .services.temporal.workflow.getHandle(renewalWorkflowId(contractId))
      .describe()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return null;
        throw err;
      });

  it('start only for a contract with a deadline ahead, on the bulk queue, and end when it loses the deadline', async () => {
    const owner = await signUp();
    const end = longDate(Date.now() + 200 * DAY_MS);
    const create = async (content: string) =>
      (
        await api<{ id: string }>('POST', '/contracts', {
          token: owner.token,
          body: { title: 'Support', type: 'service_agreement', counterparty: 'Fabrikam', content },
        })
      ).body.id;
    const extract = async (id: string) =>
      expect((await api('POST', `/contracts/${id}/extract`, { token: owner.token })).status).to.equal(200);

    const fixedTerm = await create(`This Agreement ends on ${end}.`);
    await extract(fixedTerm);
    expect(await describeRenewal(fixedTerm)).to.equal(null);

    const renewing = await create(
      `This Agreement ends on ${end}. It renews automatically for one-year terms unless either party gives notice of non-renewal at least 60 days before the end of the then-current term.`,
    );
    await extract(renewing);
    const running = await describeRenewal(renewing);
    expect(running?.status.name).to.equal('RUNNING');
    expect(running?.taskQueue).to.equal(taskQueueOf(testEnv().config, 'bulk'));

    const edited = await api('PUT', `/contracts/${renewing}/terms`, {
      token: owner.token,
      body: { terms: { auto_renewal: { value: 'does not renew', normalized: false } } },
    });
    expect(edited.status, edited.text).to.equal(200);
    await testEnv().services.temporal.workflow.getHandle(renewalWorkflowId(renewing)).result();
    expect((await describeRenewal(renewing))?.status.name).to.equal('COMPLETED');
  });

  it('a batch signal at worker start ends runs left with nothing to remind of, once per deployment, and keeps the others', async () => {
    const { services, config } = testEnv();
    const owner = await signUp();
    const end = longDate(Date.now() + 300 * DAY_MS);
    const renewing = async () => {
      const res = await api<{ id: string }>('POST', '/contracts', {
        token: owner.token,
        body: {
          title: 'Hosting',
          type: 'service_agreement',
          counterparty: 'Contoso',
          content: `This Agreement ends on ${end}. It renews automatically for one-year terms unless either party gives notice of non-renewal at least 30 days before the end of the then-current term.`,
        },
      });
      expect((await api('POST', `/contracts/${res.body.id}/extract`, { token: owner.token })).status).to.equal(200);
      expect((await describeRenewal(res.body.id))?.status.name).to.equal('RUNNING');
      return res.body.id;
    };
    const [stranded, kept] = [await renewing(), await renewing()];
    const running = async (type: string) =>
      Number(
        (
          await services.temporal.workflowService.countWorkflowExecutions({
            namespace: config.TEMPORAL_NAMESPACE,
            query: `WorkflowType = "${type}" AND ExecutionStatus = "Running" AND OrganizationId = "${owner.organizationId}"`,
          })
        ).count,
      );
    // The creates' own term extractions (bulk queue) end first: a later one would write the deadline back.
    await waitFor(async () => (await running('contractTermsWorkflow')) === 0, 120000, "the creates' term extractions ended");
    // As a run of an older release was left: its deadline gone, and no signal told it.
    await ContractTerms.updateOne({ contract_id: new Types.ObjectId(stranded) }, { $set: { opt_out_deadline: null } });
    let seen = -1;
    await waitFor(async () => (seen = await running('renewalDeadlineWorkflow')) === 2, 60000, 'both runs visible').catch((err: unknown) => {
      throw new Error(`${String(err)}: ${seen} running`);
    });

    expect(await replanRenewalRuns(services)).to.equal(true);
    expect(await replanRenewalRuns(services)).to.equal(false);
    await services.temporal.workflow.getHandle(renewalWorkflowId(stranded)).result();
    expect((await describeRenewal(stranded))?.status.name).to.equal('COMPLETED');
    // The other run got the signal too, planned again, and waits for its reminders.
    const keptRun = services.temporal.workflow.getHandle(renewalWorkflowId(kept));
    await waitFor(
      async () => {
        const events = (await keptRun.fetchHistory()).events ?? [];
        const signalled = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes);
        return signalled >= 0 && events.slice(signalled).some((e) => e.activityTaskCompletedEventAttributes);
      },
      30000,
      'the kept run planned again after the signal',
    );
    expect((await describeRenewal(kept))?.status.name).to.equal('RUNNING');
  });
});
