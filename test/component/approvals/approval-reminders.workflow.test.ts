import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { runTimeSkippingWorker, startTimeSkippingWorker } from '../../support/time-skipping';
import { createApprovalActivities, type ApprovalActivities } from '../../../activities/approvals';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { Event, type EventType } from '../../../models/event';
import { OutgoingMail, type MailKind } from '../../../models/outgoing-mail';
import { approvalWorkflow } from '../../../workflows/approval';
import { approvalChangedSignal, approvalWorkflowId } from '../../../workflows/approval.shared';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * An approval request on a new contract, one step per approver, each reminding every 2 days and
 * escalating to the owner at 5. A member writes and requests it: the requester and the author do
 * not count as approvers, so the owner can decide once escalated.
 */
async function requestApproval(owner: TestUser, approvers: TestUser[]): Promise<string> {
  const requester = await addMember(owner, 'member');
  for (const [i, approver] of approvers.entries()) {
    const policy = await api('POST', '/settings/approval-policies', {
      token: owner.token,
      body: {
        name: `Step ${i + 1}`,
        step: i + 1,
        approvers: { kind: 'members', user_ids: [approver.user.id] },
        reminder_days: 2,
        escalation_days: 5,
        escalate_to_role: 'owner',
      },
    });
    expect(policy.status, policy.text).to.equal(201);
  }
  const c = await api<{ id: string }>('POST', '/contracts', {
    token: requester.token,
    body: { title: 'Supply', type: 'service_agreement', counterparty: 'Acme', content: 'Text.' },
  });
  const started = await api<{ approval: { id: string } }>('POST', `/contracts/${c.body.id}/approvals`, { token: requester.token });
  expect(started.status, started.text).to.equal(201);
  return started.body.approval.id;
}

describe('approval reminders and escalation (time-skipping)', function () {
  this.timeout(180000);
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;
  const taskQueue = 'approval-reminders-test';

  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, createApprovalActivities(testEnv().services)));
  });
  after(() => stop?.());

  it('reminds every reminder_days and escalates once at escalation_days, each mail once', async () => {
    const owner = await signUp();
    const member = await addMember(owner, 'member');
    const approvalId = await requestApproval(owner, [member]);
    const mails = (kind: MailKind) => OutgoingMail.find({ kind, 'ref.approval_id': approvalId }).lean();

    await env.client.workflow.start(approvalWorkflow, {
      taskQueue,
      workflowId: `approval-test-${approvalId}`,
      args: [{ organizationId: owner.organizationId, approvalId }],
    });
    await env.sleep(HOUR_MS);
    expect((await mails('approval_request')).map((m) => m.to)).to.deep.equal([member.email]);
    await env.sleep(2 * DAY_MS);
    expect(await mails('approval_reminder')).to.have.length(1);
    await env.sleep(2 * DAY_MS);
    expect(await mails('approval_reminder')).to.have.length(2);
    expect(await mails('approval_escalation')).to.have.length(0);
    await env.sleep(DAY_MS);
    expect((await mails('approval_escalation')).map((m) => m.to)).to.deep.equal([owner.email]);
    expect(await Event.countDocuments({ resource_id: approvalId, type: 'approval.escalated' })).to.equal(1);
    // The owner may now decide; the request closes and the workflow ends without further mail.
    const ok = await api<{ status: string }>('POST', `/approvals/${approvalId}/approve`, { token: owner.token });
    expect(ok.body.status).to.equal('approved');
    await env.sleep(10 * DAY_MS);
    expect(await mails('approval_reminder')).to.have.length(2);
    expect(await mails('approval_escalation')).to.have.length(1);
  });

  it('sends each mail and event once across worker restarts, and keeps a decision taken while no worker ran', async () => {
    const owner = await signUp();
    const [first, second] = [await addMember(owner, 'member'), await addMember(owner, 'member')];
    const approvalId = await requestApproval(owner, [first, second]);
    const workflowId = approvalWorkflowId(approvalId);
    // The API started this workflow on the run's real server; here the time-skipping server runs it instead.
    await testEnv().services.temporal.workflow.getHandle(workflowId).terminate('run on the time-skipping server');

    // Each call of a sending activity, by step (and reminder number): a replay must not call one again.
    const calls: string[] = [];
    const real = createApprovalActivities(testEnv().services);
    const activities: ApprovalActivities = {
      ...real,
      notifyApprovers: (i) => (calls.push(`request ${i.step}`), real.notifyApprovers(i)),
      sendApprovalReminder: (i) => (calls.push(`reminder ${i.step}.${i.n}`), real.sendApprovalReminder(i)),
      escalateApproval: (i) => (calls.push(`escalation ${i.step}`), real.escalateApproval(i)),
    };
    const queue = 'approval-restart-test';
    const mails = async () => (await OutgoingMail.find({ 'ref.approval_id': approvalId }).lean()).map((m) => `${m.kind} ${m.to}`).sort();
    const events = async (type: EventType) => Event.countDocuments({ resource_id: approvalId, type });

    // No workflow cache: a stopped worker's sticky queue would hold the next task until a timeout
    // the test server's clock never reaches, and every task then replays the whole history.
    const startWorker = () => runTimeSkippingWorker(env, queue, activities, { maxCachedWorkflows: 0 });
    let stopWorker = await startWorker();
    const handle = await env.client.workflow.start(approvalWorkflow, {
      taskQueue: queue,
      workflowId,
      args: [{ organizationId: owner.organizationId, approvalId }],
    });
    await env.sleep(2 * DAY_MS + HOUR_MS);
    expect(calls).to.deep.equal(['request 1', 'reminder 1.1']);

    // Restart after the first reminder: the new worker replays the history, then sends the second reminder once.
    await stopWorker();
    stopWorker = await startWorker();
    await env.sleep(2 * DAY_MS);
    expect(calls).to.deep.equal(['request 1', 'reminder 1.1', 'reminder 1.2']);
    await env.sleep(DAY_MS);
    expect(calls).to.deep.equal(['request 1', 'reminder 1.1', 'reminder 1.2', 'escalation 1']);
    expect(await mails()).to.deep.equal(
      [
        `approval_escalation ${owner.email}`,
        `approval_reminder ${first.email}`,
        `approval_reminder ${first.email}`,
        `approval_request ${first.email}`,
      ].sort(),
    );

    // Step 1 is approved while no worker runs (the API's write and its nudge): the new worker moves on to step 2.
    await stopWorker();
    const approved = await api<{ status: string }>('POST', `/approvals/${approvalId}/approve`, { token: first.token });
    expect(approved.status, approved.text).to.equal(200);
    await handle.signal(approvalChangedSignal);
    expect(await mails()).to.not.include(`approval_request ${second.email}`);
    stopWorker = await startWorker();
    await env.sleep(HOUR_MS);
    await env.sleep(2 * DAY_MS);
    expect(calls).to.deep.equal(['request 1', 'reminder 1.1', 'reminder 1.2', 'escalation 1', 'request 2', 'reminder 2.1']);

    const done = await api<{ status: string }>('POST', `/approvals/${approvalId}/approve`, { token: second.token });
    expect(done.body.status, done.text).to.equal('approved');
    await handle.signal(approvalChangedSignal);
    await handle.result();
    await stopWorker();
    expect(calls).to.have.length(6);
    expect(await mails()).to.deep.equal(
      [
        `approval_escalation ${owner.email}`,
        `approval_reminder ${first.email}`,
        `approval_reminder ${first.email}`,
        `approval_request ${first.email}`,
        `approval_request ${second.email}`,
        `approval_reminder ${second.email}`,
      ].sort(),
    );
    const counts = await Promise.all(
      (['approval.requested', 'approval.escalated', 'approval.approved', 'approval.completed'] as const).map(events),
    );
    expect(counts).to.deep.equal([1, 1, 2, 1]);
  });
});
