import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { Runtime, Worker, type LogLevel, type LogMetadata } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { mailDeliveryWorkflow } from '../../../workflows/mail-delivery';
import { createTimeSkippingEnv } from '../../support/time-skipping';

type Answer = 'sent' | 'transient' | 'permanent';

/** The mail backoff in workflow time, with an SMTP outcome scripted per try. */
describe('mail delivery workflow (time-skipping)', function () {
  this.timeout(180000);
  let env: TestWorkflowEnvironment;

  // Each scripted failure would print a warning with its stack (hundreds of tries): kept quiet here.
  const logger = Runtime.instance().logger;
  const log = logger.log.bind(logger);
  before(async () => {
    logger.log = (level: LogLevel, message: string, meta?: LogMetadata) => {
      if (message !== 'Activity failed' || meta?.activityType !== 'deliverMail') log(level, message, meta);
    };
    env = await createTimeSkippingEnv();
  });
  after(async () => {
    logger.log = log;
    await env?.teardown();
  });

  async function run(answer: (offsetS: number) => Answer) {
    const tries: number[] = [];
    const failed: Array<{ reason: string | null; gaveUp: boolean }> = [];
    let t0: number | null = null;
    const taskQueue = `mail-${Math.random()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../../../workflows'),
      activities: {
        deliverMail: async () => {
          const now = Number(await env.currentTimeMs());
          t0 ??= now;
          const offset = Math.round((now - t0) / 1000);
          tries.push(offset);
          const a = answer(offset);
          if (a === 'transient') throw ApplicationFailure.retryable('421 4.7.0 Try again later', 'SmtpTransient');
          if (a === 'permanent') throw ApplicationFailure.nonRetryable('550 5.1.1 User unknown', 'SmtpPermanent');
          return 'sent';
        },
        failMail: (input: { reason: string | null; gaveUp: boolean }) => {
          failed.push({ reason: input.reason, gaveUp: input.gaveUp });
          return Promise.resolve();
        },
      },
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(mailDeliveryWorkflow, { taskQueue, workflowId: `mail-test-${Math.random()}`, args: [{ mailId: 'm1' }] }),
    );
    return { result, tries, failed };
  }

  it('retries transient failures with doubling waits up to 10 minutes, for 24 hours, then fails', async () => {
    const r = await run(() => 'transient');
    expect(r.result).to.equal('failed');
    // Offsets in whole seconds; each try itself takes a few milliseconds of workflow time.
    [0, 10, 30, 70, 150, 310, 630, 1230, 1830].forEach((expected, i) => expect(r.tries[i]).to.be.within(expected, expected + 1));
    const gaps = r.tries.slice(1).map((t, i) => t - r.tries[i]!);
    expect(Math.max(...gaps)).to.be.within(600, 601);
    expect(r.tries.at(-1)).to.be.within(24 * 3600 - 600, 24 * 3600);
    expect(r.failed).to.deep.equal([{ reason: null, gaveUp: true }]);
  });

  it('is sent when the server takes it after more than an hour of transient failures', async () => {
    const r = await run((offset) => (offset < 3600 ? 'transient' : 'sent'));
    expect(r.result).to.equal('sent');
    expect(r.tries.at(-1)).to.be.within(3600, 3600 + 600);
    expect(r.failed).to.deep.equal([]);
  });

  it('fails at once, without a second try, on a permanent (5xx) refusal', async () => {
    const r = await run(() => 'permanent');
    expect(r.result).to.equal('failed');
    expect(r.tries).to.deep.equal([0]);
    expect(r.failed).to.deep.equal([{ reason: '550 5.1.1 User unknown', gaveUp: false }]);
  });
});
