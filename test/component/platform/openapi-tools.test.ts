/**
 * The generated OpenAPI document against the tools people will point at it (run by `npm test`):
 * Redocly CLI lint with redocly.yaml, and Schemathesis (`--checks all`) against a running API on
 * the test engines, authenticated with an owner's API key. Schemathesis comes from PyPI into
 * .stack/venv-schemathesis (scripts/stack.sh), Redocly from npm (a devDependency).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { createApp } from '../../../api/app';
import { api } from '../../support/http';
import { signUp } from '../../support/auth';
import { testEnv } from '../../support/env';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCHEMATHESIS = path.join(ROOT, '.stack/venv-schemathesis/bin/schemathesis');

/** Runs a tool to its end; its exit code and output, never a throw. */
function run(
  file: string,
  args: string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

async function documentFile(): Promise<string> {
  const doc = await api('GET', '/openapi.json');
  expect(doc.status).to.equal(200);
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'openapi-')), 'openapi.json');
  await writeFile(file, doc.text);
  return file;
}

describe('OpenAPI document under Redocly and Schemathesis', function () {
  this.timeout(15 * 60_000);

  it('passes Redocly lint (redocly.yaml) with no problem', async () => {
    const result = await run(
      path.join(ROOT, 'node_modules/.bin/redocly'),
      ['lint', await documentFile(), '--config', 'redocly.yaml', '--format', 'stylish'],
      120_000,
    );
    expect(result.output, result.output).to.include('Your API description is valid');
    expect(result.output, result.output).to.not.match(/\d+ (warning|error)s?\b/);
    expect(result.code, result.output).to.equal(0);
  });

  it('gets no server error and no schema mismatch from Schemathesis --checks all', async () => {
    const { services } = testEnv();
    // An API of its own with limits a fuzzer does not reach in its run, so it explores the
    // operations rather than the 429 (whose shape it still checks on the login limits), and
    // counters of its own, so its logins from 127.0.0.1 do not spend later tests' allowance.
    const config = {
      ...services.config,
      RATE_LIMIT_DEFAULT_PER_MINUTE: 1_000_000,
      REDIS_KEY_PREFIX: `${services.config.REDIS_KEY_PREFIX}-fuzz`,
    };
    const server: Server = createApp({ ...services, config }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const owner = await signUp();
      // An API key, not an access token: a fuzzed POST /auth/logout would revoke the token mid-run.
      const key = await api<{ key: string }>('POST', '/settings/api-keys', {
        token: owner.token,
        body: { name: 'schemathesis', role: 'owner' },
      });
      expect(key.status, key.text).to.equal(201);
      const started = Date.now();
      const result = await run(
        SCHEMATHESIS,
        [
          // No --url: the document's servers (/api/v1, and / for /health and the signing page) resolve against it.
          'run',
          `${base}/api/v1/openapi.json`,
          '--header',
          `Authorization: Bearer ${key.body.key}`,
          '--checks',
          'all',
          // Bounded for CI on two cores: a few examples per operation and phase.
          '--max-examples',
          process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '5',
          '--workers',
          '2',
          '--request-timeout',
          '30',
          '--seed',
          process.env.SCHEMATHESIS_SEED ?? '1',
          '--no-color',
        ],
        12 * 60_000,
        { ...process.env, SCHEMATHESIS_TELEMETRY: 'false' },
      );
      console.log(`      schemathesis: ${Math.round((Date.now() - started) / 1000)} s`);
      expect(result.code, result.output).to.equal(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
