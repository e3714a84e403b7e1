/** The Java SDK's time-skipping test server, installed by scripts/stack.sh (no download at test time). */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './processes';

export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const binary = process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(repoRoot, '.stack/bin/temporal-test-server');
  if (!existsSync(binary)) throw new Error(`time-skipping test server not found at ${binary}: run scripts/stack.sh provision`);
  return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: binary } } });
}
