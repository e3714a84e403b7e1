import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import type { AttemptInput } from '../activities/webhooks';
import { createTimeSkippingEnv } from './support/time-skipping';

/** The retry schedule in workflow time, with a receiver scripted per attempt. */
describe('webhook delivery workflow (time-skipping)', function () {
  this.timeout(120000);
  let env: TestWorkflowEnvironment;

  before(async () => {
    env = await createTimeSkippingEnv();
  });
  after(async () => {
    await env?.teardown();
  });

  async function run(answers: Array<'delivered' | 'retry'>) {
    const attempts: Array<{ attempt: number; at: number; retryInMs: number | null }> = [];
    let failedMarked = false;
    const start = Date.now();
    const taskQueue = `delivery-${Math.random()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../workflows'),
      activities: {
        attemptWebhookDelivery: async (input: AttemptInput) => {
          const now = Number(await env.currentTimeMs());
          attempts.push({ attempt: input.attempt, at: now, retryInMs: input.retryInMs });
          const answer = answers[input.attempt - 1] ?? 'retry';
          return answer === 'retry' && input.retryInMs === null ? 'failed' : answer;
        },
        failWebhookDelivery: () => {
          failedMarked = true;
          return Promise.resolve();
        },
      },
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(webhookDeliveryWorkflow, { taskQueue, workflowId: `wd-${Math.random()}`, args: [{ deliveryId: 'd1' }] }),
    );
    const t0 = attempts[0]!.at;
    return { result, failedMarked, offsets: attempts.map((a) => Math.round((a.at - t0) / 1000)), attempts, wallMs: Date.now() - start };
  }

  it('attempts at 0 s, 30 s and 330 s of workflow time, then fails', async () => {
    const r = await run(['retry', 'retry', 'retry']);
    expect(r.result).to.equal('failed');
    expect(r.failedMarked).to.equal(true);
    expect(r.offsets).to.deep.equal([0, 30, 330]);
    expect(r.attempts.map((a) => a.retryInMs)).to.deep.equal([30000, 300000, null]);
  });

  it('ends delivered after two attempts when the receiver recovers', async () => {
    const r = await run(['retry', 'delivered']);
    expect(r.result).to.equal('delivered');
    expect(r.failedMarked).to.equal(false);
    expect(r.offsets).to.deep.equal([0, 30]);
  });
});
