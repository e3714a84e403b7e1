import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { webhookBatchWorkflow, webhookDeliveryWorkflow, webhookEventWorkflow } from '../../../workflows/webhook-delivery';
import { deliveriesAssignedSignal } from '../../../workflows/webhook-delivery.shared';
import type { AttemptInput } from '../../../workflows/webhook-delivery.shared';
import { createTimeSkippingEnv } from '../../support/time-skipping';

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

  /**
   * Runs a batch's workflow (or a previous release's) over the deliveries `answers` names, each
   * answered per attempt as scripted; `late` deliveries are assigned to the batch after its
   * first attempts, with a `deliveriesAssigned` signal, as a relay that wrote them late does.
   */
  async function runEvent(
    answers: Record<string, Array<'delivered' | 'retry'>>,
    workflow: 'batch' | 'event' | 'previous' = 'batch',
    late: string[] = [],
  ) {
    const attempts: Array<{ deliveryId: string; subscriptionId?: string; attempt: number; at: number; retryInMs: number | null }> = [];
    const failedMarked: string[] = [];
    const assigned = Object.keys(answers).filter((id) => !late.includes(id));
    const reads: string[][] = [];
    const start = Date.now();
    const taskQueue = `delivery-${Math.random()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../../../workflows'),
      activities: {
        attemptWebhookDelivery: async (input: AttemptInput) => {
          const now = Number(await env.currentTimeMs());
          attempts.push({ ...input, at: now });
          const answer = answers[input.deliveryId]![input.attempt - 1] ?? 'retry';
          return answer === 'retry' && input.retryInMs === null ? 'failed' : answer;
        },
        assignedWebhookDeliveries: () => {
          reads.push([...assigned]);
          return Promise.resolve(assigned.map((id) => ({ deliveryId: id, subscriptionId: `sub-${id}` })));
        },
        failWebhookDelivery: ({ deliveryId }: { deliveryId: string }) => {
          failedMarked.push(deliveryId);
          return Promise.resolve();
        },
      },
    });
    const ids = Object.keys(answers);
    const batch = async () => {
      const handle = await env.client.workflow.start(webhookBatchWorkflow, { taskQueue, workflowId: `wb-${Math.random()}` });
      if (late.length) {
        while (!attempts.length) await new Promise((r) => setTimeout(r, 50));
        assigned.push(...late);
        await handle.signal(deliveriesAssignedSignal);
      }
      return handle.result();
    };
    const result = await worker.runUntil(
      workflow === 'batch'
        ? batch()
        : workflow === 'event'
          ? env.client.workflow.execute(webhookEventWorkflow, {
              taskQueue,
              workflowId: `we-${Math.random()}`,
              args: [{ deliveries: ids.map((id) => ({ deliveryId: id, subscriptionId: `sub-${id}` })) }],
            })
          : env.client.workflow
              .execute(webhookDeliveryWorkflow, { taskQueue, workflowId: `wd-${Math.random()}`, args: [{ deliveryId: ids[0]! }] })
              .then((r) => [r]),
    );
    // Each delivery's schedule counts from its own first attempt: under load the batch's first
    // attempts start a second or so apart in workflow time, which is not the schedule.
    const offsetsOf = (id: string) => {
      const own = attempts.filter((a) => a.deliveryId === id);
      return own.map((a) => Math.round((a.at - own[0]!.at) / 1000));
    };
    return { result, failedMarked, offsetsOf, attempts, reads, wallMs: Date.now() - start };
  }

  const run = async (answers: Array<'delivered' | 'retry'>) => {
    const r = await runEvent({ d1: answers });
    return { ...r, result: r.result[0], offsets: r.offsetsOf('d1') };
  };

  it('attempts at 0 s, 30 s and 330 s of workflow time, then fails', async () => {
    const r = await run(['retry', 'retry', 'retry']);
    expect(r.result).to.equal('failed');
    expect(r.failedMarked).to.deep.equal(['d1']);
    expect(r.offsets).to.deep.equal([0, 30, 330]);
    expect(r.attempts.map((a) => a.retryInMs)).to.deep.equal([30000, 300000, null]);
  });

  it('ends delivered after two attempts when the receiver recovers', async () => {
    const r = await run(['retry', 'delivered']);
    expect(r.result).to.equal('delivered');
    expect(r.failedMarked).to.deep.equal([]);
    expect(r.offsets).to.deep.equal([0, 30]);
  });

  it("runs each delivery's schedule on its own within the batch's workflow", async () => {
    const r = await runEvent({ a: ['delivered'], b: ['retry', 'retry', 'retry'], c: ['retry', 'delivered'] });
    expect(r.result).to.deep.equal(['delivered', 'failed', 'delivered']);
    expect(r.offsetsOf('a')).to.deep.equal([0]);
    expect(r.offsetsOf('b')).to.deep.equal([0, 30, 330]);
    expect(r.offsetsOf('c')).to.deep.equal([0, 30]);
    const firsts = ['a', 'b', 'c'].map((id) => r.attempts.find((a) => a.deliveryId === id)!.at);
    expect(Math.max(...firsts) - Math.min(...firsts), 'the first attempts start together').to.be.below(5000);
    expect(r.failedMarked).to.deep.equal(['b']);
    // Each attempt is made once, with its subscription.
    expect(r.attempts.map((a) => `${a.deliveryId}:${a.attempt}:${a.subscriptionId}`).sort()).to.deep.equal([
      'a:1:sub-a',
      'b:1:sub-b',
      'b:2:sub-b',
      'b:3:sub-b',
      'c:1:sub-c',
      'c:2:sub-c',
    ]);
  });

  it('reads the deliveries assigned after its start when signalled, and posts each attempt once', async () => {
    const r = await runEvent({ a: ['delivered'], b: ['retry', 'delivered'], late: ['delivered'] }, 'batch', ['late']);
    expect(r.result).to.deep.equal(['delivered', 'delivered', 'delivered']);
    expect(r.reads).to.deep.equal([
      ['a', 'b'],
      ['a', 'b', 'late'],
    ]);
    expect(r.offsetsOf('b')).to.deep.equal([0, 30]);
    expect(r.attempts.map((a) => `${a.deliveryId}:${a.attempt}`).sort()).to.deep.equal(['a:1', 'b:1', 'b:2', 'late:1']);
  });

  it("keeps the previous release's workflow of one event on the same schedule", async () => {
    const r = await runEvent({ a: ['delivered'], b: ['retry', 'retry', 'retry'] }, 'event');
    expect(r.result).to.deep.equal(['delivered', 'failed']);
    expect(r.offsetsOf('b')).to.deep.equal([0, 30, 330]);
    expect(r.failedMarked).to.deep.equal(['b']);
  });

  it("keeps the previous release's one-delivery workflow on the same schedule", async () => {
    const r = await runEvent({ d1: ['retry', 'retry', 'retry'] }, 'previous');
    expect(r.result).to.deep.equal(['failed']);
    expect(r.offsetsOf('d1')).to.deep.equal([0, 30, 330]);
    expect(r.failedMarked).to.deep.equal(['d1']);
  });
});
