import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startTestEnv, stopTestEnv } from './env';

// Worker state changes and bundler output are noise in test output; warnings still show.
Runtime.install({ logger: new DefaultLogger('WARN') });

/** Mocha root hooks: the engines are started once per run by scripts/test.sh. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120000);
    await startTestEnv();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60000);
    await stopTestEnv();
  },
};
