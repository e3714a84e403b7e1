import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../../platform/logger';
import { testEnv } from '../../support/env';
import { waitFor } from '../../support/processes';
import { supervise } from '../../../workers/supervisor';

interface LogLine {
  msg: string;
  level: number;
  code?: number | null;
  signal?: string | null;
  restartInMs?: number;
  stderr?: string;
}

/** A logger whose JSON lines land in `lines`. */
function capture() {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as LogLine);
      done();
    },
  });
  return { lines, logger: createLogger({ ...testEnv().config, LOG_LEVEL: 'info' }, 'supervisor', sink) };
}

describe('worker supervisor', function () {
  this.timeout(30000);

  it('restarts a worker that keeps crashing, with a doubling delay, and logs why it died', async () => {
    const { lines, logger } = capture();
    // A "worker" that dies as a heap exhaustion does: a message on stderr, then an abort-like exit.
    const script =
      'process.stderr.write("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\\n"); process.exit(134)';
    const supervisor = supervise({ command: process.execPath, args: ['-e', script], logger, minDelayMs: 100, maxDelayMs: 400 });
    try {
      await waitFor(() => Promise.resolve(lines.filter((l) => l.msg.startsWith('worker died')).length >= 4), 20000, 'four deaths');
    } finally {
      await supervisor.stop();
    }
    const deaths = lines.filter((l) => l.msg.startsWith('worker died'));
    expect(deaths.slice(0, 4).map((d) => d.restartInMs)).to.deep.equal([100, 200, 400, 400]);
    expect(deaths[0]).to.include({ code: 134, signal: null, level: 50 });
    expect(deaths[0]!.msg).to.match(/^worker died \(exit code 134\) after \d+ s; restarting in 0\.1 s$/);
    expect(deaths[0]!.stderr).to.match(/JavaScript heap out of memory/);
    expect(lines.filter((l) => l.msg === 'worker started').length).to.be.at.least(4);
  });

  it('restarts a worker killed by a signal, and stops it for good on stop()', async () => {
    const { lines, logger } = capture();
    const supervisor = supervise({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], logger, minDelayMs: 100 });
    try {
      await waitFor(() => Promise.resolve(supervisor.pid() !== undefined), 5000, 'the worker');
      const first = supervisor.pid()!;
      process.kill(first, 'SIGKILL');
      await waitFor(() => Promise.resolve(!!supervisor.pid() && supervisor.pid() !== first), 10000, 'a new worker');
      const death = lines.find((l) => l.msg.startsWith('worker died'));
      expect(death).to.include({ signal: 'SIGKILL', code: null, restartInMs: 100 });
    } finally {
      await supervisor.stop();
    }
    expect(supervisor.pid()).to.equal(undefined);
    expect(lines.at(-1)).to.include({ msg: 'worker stopped', signal: 'SIGTERM' });
  });

  it('restarts a worker that is alive but stuck in a loop: it stopped sending heartbeats', async () => {
    const { lines, logger } = capture();
    // Heartbeats as workers/heartbeat.ts sends them, until the event loop is blocked for good.
    const script = 'setInterval(() => process.send({ type: "heartbeat" }), 50); setTimeout(() => { for (;;); }, 300)';
    const supervisor = supervise({ command: process.execPath, args: ['-e', script], logger, minDelayMs: 100, heartbeatTimeoutMs: 1500 });
    try {
      await waitFor(() => Promise.resolve(supervisor.pid() !== undefined), 5000, 'the worker');
      const first = supervisor.pid()!;
      await waitFor(() => Promise.resolve(!!supervisor.pid() && supervisor.pid() !== first), 20000, 'a new worker');
      const stuck = lines.find((l) => l.msg.includes('sent no heartbeat'));
      expect(stuck, lines.map((l) => l.msg).join(' | ')).to.include({ level: 50 });
      expect(lines.find((l) => l.msg.startsWith('worker died'))).to.include({ signal: 'SIGKILL' });
    } finally {
      await supervisor.stop();
    }
  });

  it('leaves a worker alone while its heartbeats come', async () => {
    const { lines, logger } = capture();
    const script = 'setInterval(() => process.send({ type: "heartbeat" }), 50)';
    const supervisor = supervise({ command: process.execPath, args: ['-e', script], logger, heartbeatTimeoutMs: 500 });
    try {
      await waitFor(() => Promise.resolve(supervisor.pid() !== undefined), 5000, 'the worker');
      const first = supervisor.pid();
      await new Promise((r) => setTimeout(r, 2000));
      expect(supervisor.pid()).to.equal(first);
      expect(lines.filter((l) => l.msg.startsWith('worker died'))).to.have.length(0);
    } finally {
      await supervisor.stop();
    }
  });
});
