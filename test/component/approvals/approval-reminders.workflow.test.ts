import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startTimeSkippingWorker } from '../../support/time-skipping';
import { createApprovalActivities } from '../../../activities/approvals';
import { api } from '../../support/http';
import { addMember, signUp } from '../../support/auth';
import { testEnv } from '../../support/env';
import { Event } from '../../../models/event';
import { OutgoingMail, type MailKind } from '../../../models/outgoing-mail';
import { approvalWorkflow } from '../../../workflows/approval';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

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
    const policy = await api('POST', '/settings/approval-policies', {
      token: owner.token,
      body: {
        name: 'Legal',
        approvers: { kind: 'members', user_ids: [member.user.id] },
        reminder_days: 2,
        escalation_days: 5,
        escalate_to_role: 'owner',
      },
    });
    expect(policy.status, policy.text).to.equal(201);
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Lease', type: 'service_agreement', counterparty: 'Acme', content: 'Text.' },
    });
    const started = await api<{ approval: { id: string } }>('POST', `/contracts/${c.body.id}/approvals`, { token: owner.token });
    expect(started.status, started.text).to.equal(201);
    const approvalId = started.body.approval.id;
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
});
