import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { createOffloadPool, OffloadTaskError, OffloadTimeoutError, offloadTask, type OffloadPool } from '../../../platform/offload';
import { failTask, spinTask, squareTask } from '../../support/offload-tasks';

const repoRoot = path.resolve(__dirname, '../../..');

describe('offload pool', () => {
  let pool: OffloadPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('runs a task in a worker thread and answers its result', async () => {
    pool = createOffloadPool({ threads: 1 });
    const answer = await pool.run(squareTask, { n: 12 }, { timeoutMs: 10_000 });
    expect(answer.value).to.equal(144);
    expect(answer.threadId).to.be.above(0); // not the main thread (0)
  });

  it('keeps the event loop free while a task computes', async () => {
    pool = createOffloadPool({ threads: 1 });
    await pool.run(squareTask, { n: 1 }, { timeoutMs: 10_000 }); // the thread is up
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    await pool.run(spinTask, { ms: 400 }, { timeoutMs: 10_000 });
    clearInterval(ticker);
    // On a blocked loop the interval could not fire at all during the 400 ms.
    expect(ticks).to.be.at.least(10);
  });

  it('stops a call past its budget with a typed error, replaces the thread and serves the next call', async () => {
    pool = createOffloadPool({ threads: 1 });
    const first = await pool.run(spinTask, { ms: 0 }, { timeoutMs: 10_000 });
    const err = await pool.run(spinTask, { ms: 60_000 }, { timeoutMs: 300 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(OffloadTimeoutError);
    expect((err as OffloadTimeoutError).timeoutMs).to.equal(300);
    expect((err as Error).message).to.match(/offload-tasks\.ts#spin took longer than 300 ms/);
    const next = await pool.run(spinTask, { ms: 0 }, { timeoutMs: 10_000 });
    expect(next.threadId).to.not.equal(first.threadId);
    expect(pool.size).to.equal(1);
  });

  it('passes a task error back with its name and message, and keeps the thread', async () => {
    pool = createOffloadPool({ threads: 1 });
    const before = await pool.run(spinTask, { ms: 0 }, { timeoutMs: 10_000 });
    const err = await pool.run(failTask, { message: 'no such clause' }, { timeoutMs: 10_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(OffloadTaskError);
    expect((err as OffloadTaskError).errorName).to.equal('RangeError');
    expect((err as Error).message).to.contain('no such clause');
    const after = await pool.run(spinTask, { ms: 0 }, { timeoutMs: 10_000 });
    expect(after.threadId).to.equal(before.threadId);
  });

  it('refuses a missing export as a task error', async () => {
    pool = createOffloadPool({ threads: 1 });
    const missing = offloadTask<(input: number) => number>(path.join(repoRoot, 'test/support/offload-tasks.ts'), 'nothing');
    const err = await pool.run(missing, 1, { timeoutMs: 10_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(OffloadTaskError);
    expect((err as Error).message).to.contain('nothing is not a function');
  });

  it('runs no more threads than its size; later calls wait their turn and their budget starts with it', async () => {
    pool = createOffloadPool({ threads: 2 });
    const calls = Array.from({ length: 5 }, () => pool!.run(spinTask, { ms: 250 }, { timeoutMs: 2_000 }));
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.size).to.equal(2);
    const answers = await Promise.all(calls);
    // Five calls of 250 ms on two threads: the last waits about 500 ms, yet none times out.
    expect(new Set(answers.map((a) => a.threadId)).size).to.equal(2);
    expect(pool.size).to.equal(2);
  });

  it('fails waiting calls when closed', async () => {
    pool = createOffloadPool({ threads: 1 });
    const outcome = (call: Promise<unknown>) =>
      call.then(
        () => null,
        (e: unknown) => e,
      );
    const running = outcome(pool.run(spinTask, { ms: 5_000 }, { timeoutMs: 10_000 }));
    const waiting = outcome(pool.run(squareTask, { n: 2 }, { timeoutMs: 10_000 }));
    await pool.close();
    for (const err of await Promise.all([running, waiting])) expect((err as Error).message).to.equal('the offload pool is closed');
    pool = undefined;
  });

  it('works from compiled JavaScript, with no tsx in the process', function () {
    this.timeout(60_000);
    // Transpile the pool, its thread and a task the way `npm run build` does, into a folder of their own.
    const out = mkdtempSync(path.join(os.tmpdir(), 'offload-'));
    try {
      const compile = (source: string, target: string) => {
        const js = ts.transpileModule(readFileSync(path.join(repoRoot, source), 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
        }).outputText;
        mkdirSync(path.dirname(path.join(out, target)), { recursive: true });
        writeFileSync(path.join(out, target), js);
      };
      compile('platform/offload.ts', 'platform/offload.js');
      compile('platform/offload-worker.ts', 'platform/offload-worker.js');
      compile('test/support/offload-tasks.ts', 'test/support/offload-tasks.js');
      const script = `
        const { createOffloadPool } = require('./platform/offload.js');
        const { squareTask } = require('./test/support/offload-tasks.js');
        const pool = createOffloadPool({ threads: 1 });
        pool.run(squareTask, { n: 7 }, { timeoutMs: 10000 }).then(async (r) => {
          console.log(JSON.stringify({ value: r.value, tsx: Object.keys(require.cache).some((k) => k.includes('tsx')) }));
          await pool.close();
        });`;
      const r = spawnSync(process.execPath, ['-e', script], { cwd: out, encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(r.stderr).to.equal('');
      expect(JSON.parse(r.stdout)).to.deep.equal({ value: 49, tsx: false });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
