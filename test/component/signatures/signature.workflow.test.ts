import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowNotFoundError } from '@temporalio/client';
import { signatureWorkflow } from '../../../workflows/signature';
import {
  signedSignal,
  declinedSignal,
  retrySealSignal,
  statusQuery,
  viewedSignal,
  type StoredSignatureState,
} from '../../../workflows/signature.shared';
import { startTimeSkippingWorker } from '../../support/time-skipping';

const DAY = 24 * 3600 * 1000;

/** Reminders, expiry and completion of a signature request in workflow time. */
describe('signature workflow (time-skipping)', function () {
  this.timeout(120000);
  let env: TestWorkflowEnvironment;
  const calls: Array<{ name: string; at: number }> = [];
  let stop: (() => Promise<void>) | undefined;
  const taskQueue = 'signatures-test';
  /** What the store says when the reminder activity reads it (null: nothing to catch up on). */
  let stored: StoredSignatureState | null = null;
  /** How many more seal attempts fail. */
  let sealFailures = 0;

  before(async () => {
    const record = (name: string) => async () => {
      calls.push({ name, at: Number(await env.currentTimeMs()) });
    };
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, {
      sendSignatureReminders: async () => {
        await record('remind')();
        return stored;
      },
      readSignatureState: async () => {
        await record('read')();
        return stored;
      },
      completeSignatureRequest: record('complete'),
      expireSignatureRequest: record('expire'),
      renderSignedPdf: record('render'),
      sealSignedPdf: async () => {
        await record('seal')();
        if (sealFailures-- > 0) throw new Error('the sealing certificate is unreadable');
      },
      recordSealingError: async ({ error }: { error: string }) => {
        await record(`seal-error: ${error}`)();
      },
    }));
  });
  after(() => stop?.());
  beforeEach(() => {
    calls.length = 0;
    stored = null;
    sealFailures = 0;
  });

  async function start(expiresInDays: number, signerIds = ['s1', 's2'], maxReminders?: number) {
    const startMs = Number(await env.currentTimeMs());
    const handle = await env.client.workflow.start(signatureWorkflow, {
      taskQueue,
      workflowId: `signature-${Math.random()}`,
      args: [{ signatureId: 'sig1', signerIds, expiresAtMs: startMs + expiresInDays * DAY, reminderIntervalMs: 3 * DAY, maxReminders }],
    });
    return { handle, startMs };
  }

  it('reminds every 3 days while pending, expires at the deadline, and ignores acts afterwards', async () => {
    const { handle, startMs } = await start(10);
    expect(await handle.result()).to.equal('expired');
    const days = calls.map((c) => ({ name: c.name, day: Math.round((c.at - startMs) / DAY) }));
    expect(days).to.deep.equal([
      { name: 'remind', day: 3 },
      { name: 'remind', day: 6 },
      { name: 'remind', day: 9 },
      { name: 'expire', day: 10 },
    ]);
    // The request is over: a late signature cannot reach it.
    let late: unknown;
    try {
      await handle.signal(signedSignal, { signerId: 's1' });
    } catch (err) {
      late = err;
    }
    expect(late).to.be.instanceOf(WorkflowNotFoundError);
    expect(calls.filter((c) => c.name === 'complete')).to.have.length(0);
  });

  it('sends at most maxReminders rounds in a year-long request; later ticks only read the store', async () => {
    const { handle, startMs } = await start(365, ['s1', 's2'], 2);
    expect(await handle.result()).to.equal('expired');
    const day = (c: { at: number }) => Math.round((c.at - startMs) / DAY);
    expect(calls.filter((c) => c.name === 'remind').map(day)).to.deep.equal([3, 6]);
    const reads = calls.filter((c) => c.name === 'read').map(day);
    expect(reads[0]).to.equal(9);
    expect(reads).to.have.length(119); // days 9, 12, ..., 363
    expect(calls.at(-1)).to.deep.include({ name: 'expire' });
    expect(day(calls.at(-1)!)).to.equal(365);
  });

  it('past its last reminder, still completes from the store when a signal was lost', async () => {
    const { handle, startMs } = await start(30, ['s1', 's2'], 1);
    await handle.signal(signedSignal, { signerId: 's1' });
    await env.sleep('4 days');
    stored = {
      status: 'pending',
      signers: [
        { id: 's1', status: 'signed' },
        { id: 's2', status: 'signed' },
      ],
    };
    expect(await handle.result()).to.equal('completed');
    expect(calls.map((c) => [c.name, Math.round((c.at - startMs) / DAY)])).to.deep.equal([
      ['remind', 3],
      ['read', 6],
      ['complete', 6],
      ['render', 6],
      ['seal', 6],
    ]);
  });

  it('completes once every signer has signed', async () => {
    const { handle } = await start(30);
    await handle.signal(viewedSignal, { signerId: 's1' });
    await handle.signal(signedSignal, { signerId: 's1' });
    const midway = await handle.query(statusQuery);
    expect(midway.status).to.equal('pending');
    expect(midway.signers).to.deep.equal([
      { id: 's1', status: 'signed' },
      { id: 's2', status: 'pending' },
    ]);
    await handle.signal(signedSignal, { signerId: 's2' });
    expect(await handle.result()).to.equal('completed');
    expect(calls.map((c) => c.name)).to.deep.equal(['complete', 'render', 'seal']);
  });

  it('a seal that keeps failing leaves the request completed with the error shown, until an operator retries', async () => {
    sealFailures = 1000;
    const { handle } = await start(30);
    await handle.signal(signedSignal, { signerId: 's1' });
    await handle.signal(signedSignal, { signerId: 's2' });
    // The retries' backoff passes in skipped time.
    await env.sleep('10 minutes');
    const names = calls.map((c) => c.name);
    // Six tries (about a minute of backoff in workflow time), then the error goes on the request.
    expect(names).to.deep.equal([
      'complete',
      'render',
      ...Array<string>(6).fill('seal'),
      'seal-error: the sealing certificate is unreadable',
    ]);
    expect((await handle.query(statusQuery)).status).to.equal('completed');
    sealFailures = 0;
    await handle.signal(retrySealSignal);
    expect(await handle.result()).to.equal('completed');
    expect(calls.map((c) => c.name).slice(names.length)).to.deep.equal(['render', 'seal']);
  });

  it('catches up from the store on its timer when a signal was lost', async () => {
    const { handle, startMs } = await start(30);
    await handle.signal(signedSignal, { signerId: 's1' });
    // s2 signed, but the signal never arrived: the first reminder tick reads it from the store.
    stored = {
      status: 'pending',
      signers: [
        { id: 's1', status: 'signed' },
        { id: 's2', status: 'signed' },
      ],
    };
    expect(await handle.result()).to.equal('completed');
    expect(calls.map((c) => [c.name, Math.round((c.at - startMs) / DAY)])).to.deep.equal([
      ['remind', 3],
      ['complete', 3],
      ['render', 3],
      ['seal', 3],
    ]);
  });

  it('ends as the store says when it was closed without a signal (cancelled while the engine was away)', async () => {
    const { handle } = await start(30);
    stored = {
      status: 'cancelled',
      signers: [
        { id: 's1', status: 'pending' },
        { id: 's2', status: 'pending' },
      ],
    };
    expect(await handle.result()).to.equal('cancelled');
    expect(calls.map((c) => c.name)).to.deep.equal(['remind']);
  });

  it('ends declined without completing when a signer declines', async () => {
    const { handle } = await start(30);
    await handle.signal(signedSignal, { signerId: 's1' });
    await handle.signal(declinedSignal, { signerId: 's2' });
    expect(await handle.result()).to.equal('declined');
    expect(calls.map((c) => c.name)).to.deep.equal([]);
  });
});
