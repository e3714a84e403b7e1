import { expect } from 'chai';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { testEnvironment } from '../../support/env';
import { repoRoot } from '../../support/processes';

/**
 * Runs a service entry point on this run's engines with the secrets and NODE_ENV given
 * (and none inherited), until it exits or its output matches `until` (then it is stopped).
 */
function run(entry: 'api/server' | 'workers/worker', env: Record<string, string>, until?: RegExp) {
  const base = testEnvironment();
  delete base.NODE_ENV;
  delete base.JWT_SECRET;
  delete base.ENCRYPTION_KEY;
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, `${entry}.ts`)], {
      cwd: repoRoot,
      env: { ...base, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (until?.test(output)) child.kill('SIGTERM');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    // Neither refusing nor the awaited line: stop it, and the assertions say what it printed.
    const timer = setTimeout(() => child.kill('SIGKILL'), 45000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const secrets = { JWT_SECRET: 'a-production-secret-of-at-least-32-characters', ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };

describe('configuration: secrets fail closed', () => {
  it('refuses to start the API or the worker without JWT_SECRET and ENCRYPTION_KEY when NODE_ENV is not set', async () => {
    for (const entry of ['api/server', 'workers/worker'] as const) {
      const res = await run(entry, {});
      expect(res.code, `${entry}: ${res.output}`).to.equal(1);
      expect(res.output).to.match(/Invalid configuration: .*JWT_SECRET: required unless NODE_ENV is development or test/);
      expect(res.output).to.match(/ENCRYPTION_KEY: required unless NODE_ENV is development or test/);
      expect(res.output).to.not.match(/API listening|worker running/);
    }
  });

  it('refuses the development secret from the source in production, and a missing key beside a set secret', async () => {
    const res = await run('api/server', { NODE_ENV: 'production', JWT_SECRET: 'dev-only-jwt-secret-change-me-in-production-0123456789' });
    expect(res.code, res.output).to.equal(1);
    expect(res.output).to.match(/JWT_SECRET: is the development value from the source/);
    expect(res.output).to.match(/ENCRYPTION_KEY: required unless NODE_ENV is development or test/);
  });

  it('starts with secrets and a public URL of its own in production, and with none when NODE_ENV is development', async () => {
    for (const env of [{ NODE_ENV: 'production', ...secrets, PUBLIC_BASE_URL: 'https://clm.example.com' }, { NODE_ENV: 'development' }]) {
      const res = await run('api/server', env, /API listening/);
      expect(res.output, JSON.stringify(env)).to.match(/API listening/);
      expect(res.output).to.not.match(/Invalid configuration/);
    }
  });
});
