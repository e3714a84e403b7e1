import { expect } from 'chai';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { api } from '../../support/http';
import { enableMfa, fromIp, signUp, uniqueIp, type LoginBody, type TestUser } from '../../support/auth';
import { testEnv, withSecondApi } from '../../support/env';
import { totpNow } from '../../../platform/security/totp';
import { createOffloadPool } from '../../../platform/offload';
import { ServiceKey } from '../../../models/service-key';
import { User } from '../../../models/user';
import { resealLegacySecrets } from '../../../services/secrets/reseal-legacy-secrets';
import { copyToken, readCopyToken } from '../../../services/signatures/signed-copy-link';

/** The raw ENCRYPTION_KEY, as the service used it for everything before the keys were separated. */
const rawKey = () => Buffer.from(testEnv().services.config.ENCRYPTION_KEY, 'base64');

/** A value sealed as the service sealed it before: AES-256-GCM under the raw key, `v1:`. */
function legacySeal(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', rawKey(), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
}

function rawOpen(sealed: string): string {
  const [, iv, tag, data] = sealed.split(':');
  const decipher = createDecipheriv('aes-256-gcm', rawKey(), Buffer.from(iv!, 'base64'));
  decipher.setAuthTag(Buffer.from(tag!, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(data!, 'base64')), decipher.final()]).toString('utf8');
}

/** Login with password and TOTP code: the status of the code's step. */
async function loginWithCode(u: TestUser, code: string): Promise<number> {
  const first = await api<{ mfa_token: string }>('POST', '/auth/login', {
    body: { email: u.email, password: u.password },
    headers: fromIp(uniqueIp()),
  });
  expect(first.status, first.text).to.equal(200);
  const verified = await api<LoginBody>('POST', '/auth/mfa/verify', { body: { mfa_token: first.body.mfa_token, code } });
  return verified.status;
}

describe('service keys', function () {
  this.timeout(240000);

  /**
   * Runs `fn` with no key `id` stored, and puts back what was stored afterwards, so the
   * processes of this test run that loaded it keep agreeing with the store.
   */
  async function withoutStoredKey(id: string, fn: () => Promise<void>) {
    const before = await ServiceKey.findById(id).lean();
    await ServiceKey.deleteOne({ _id: id });
    try {
      await fn();
    } finally {
      if (before) {
        await ServiceKey.deleteOne({ _id: id });
        await ServiceKey.create(before);
      }
    }
  }

  /** GET `path` on a second API (its own configuration: nothing loaded) whose offload pool is `pool`. */
  async function getOnFreshApi(path: string, pool: ReturnType<typeof createOffloadPool>): Promise<string> {
    let text = '';
    await withSecondApi(
      {},
      async (base) => {
        const res = await fetch(`${base}${path}`);
        text = await res.text();
        expect(res.status, text).to.equal(200);
      },
      { offload: pool },
    );
    return text;
  }

  for (const [id, path] of [
    ['pdf-seal', '/signatures/seal-certificate'],
    ['signature-certificate', '/signatures/public-key'],
  ] as const) {
    it(`${id}: generated in an offload thread only when none is stored; a stored one is read, not generated`, async () => {
      await withoutStoredKey(id, async () => {
        const generating = createOffloadPool({ threads: 1 });
        const idle = createOffloadPool({ threads: 1 });
        try {
          const first = await getOnFreshApi(path, generating);
          // The key was made in a thread of the pool, off the event loop that serves requests.
          expect(generating.size).to.equal(1);
          const stored = await ServiceKey.findById(id).orFail().lean();
          expect(stored.private_key_encrypted).to.match(/^v2:/);
          // Another process finds it stored: the same key, and nothing generated.
          expect(await getOnFreshApi(path, idle)).to.equal(first);
          expect(idle.size).to.equal(0);
        } finally {
          await Promise.all([generating.close(), idle.close()]);
        }
      });
    });
  }
});

describe('separate keys derived from ENCRYPTION_KEY', function () {
  this.timeout(120000);

  it('seals a new secret under a key derived for that purpose: the raw ENCRYPTION_KEY does not open it', async () => {
    const u = await signUp();
    const { secret } = await enableMfa(u);
    const stored = await User.findById(u.user.id).orFail().lean();
    expect(stored.mfa_secret_encrypted).to.match(/^v2:/);
    expect(() => rawOpen(stored.mfa_secret_encrypted!)).to.throw();
    expect(JSON.stringify(stored)).to.not.contain(secret);
  });

  it('keeps a secret sealed under the old key working, and the start-up migration reseals it', async () => {
    const u = await signUp();
    const { secret } = await enableMfa(u);
    await User.updateOne({ _id: u.user.id }, { $set: { mfa_secret_encrypted: legacySeal(secret) } });
    // Before the migration: the legacy value still opens, so the login works.
    expect(await loginWithCode(u, await totpNow(secret, Math.floor(Date.now() / 1000) + 30))).to.equal(200);

    expect(await resealLegacySecrets(testEnv().services)).to.be.at.least(1);
    const stored = await User.findById(u.user.id).orFail().lean();
    expect(stored.mfa_secret_encrypted).to.match(/^v2:/);
    expect(() => rawOpen(stored.mfa_secret_encrypted!)).to.throw();
    // A second run has nothing left to do for this user.
    await resealLegacySecrets(testEnv().services);
    expect((await User.findById(u.user.id).orFail().lean()).mfa_secret_encrypted).to.equal(stored.mfa_secret_encrypted);
    // After: the resealed secret verifies codes as before (the step used above may not come twice).
    await User.updateOne({ _id: u.user.id }, { $set: { mfa_last_step: null } });
    expect(await loginWithCode(u, await totpNow(secret))).to.equal(200);
  });

  it('MACs links under a derived key, and still opens a copy link MACed under the old one until it expires', () => {
    const { config } = testEnv().services;
    const sig = '64b000000000000000000001';
    const signer = '64b000000000000000000002';
    const token = copyToken(config, sig, signer, new Date());
    const body = token.slice(0, token.lastIndexOf('.'));
    // What the old code computed: HMAC under a purpose key made with the raw ENCRYPTION_KEY.
    const legacyPurpose = createHmac('sha256', rawKey()).update('derived-secret:signed-copy-link').digest();
    let n = BigInt(`0x${createHmac('sha256', legacyPurpose).update(body).digest('hex')}`);
    const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let legacyMac = '';
    for (let i = 0; i < 43; i++, n /= 62n) legacyMac = B62[Number(n % 62n)]! + legacyMac;

    expect(token).to.not.equal(`${body}.${legacyMac}`);
    expect(readCopyToken(config, token)).to.deep.include({ signatureId: sig, signerId: signer });
    expect(readCopyToken(config, `${body}.${legacyMac}`)).to.deep.include({ signatureId: sig, signerId: signer });
    expect(readCopyToken(config, `${body}.${legacyMac.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`)).to.equal(null);
  });
});
