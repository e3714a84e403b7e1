import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { addMember, fromIp, signUp, uniqueIp, type TestUser } from '../../support/auth';
import { startReceiver } from '../../support/receiver';
import { testEnv } from '../../support/env';
import { waitFor } from '../../support/processes';
import { Writable } from 'node:stream';
import type { Server } from 'node:http';
import { Signature } from '../../../models/signature';
import { Event } from '../../../models/event';
import { IdempotencyKey } from '../../../models/idempotency-key';
import { createApp } from '../../../api/app';
import { createLogger } from '../../../platform/logger';
import { sha256 } from '../../../services/signatures/signature-evidence';

interface Signer {
  id: string;
  name: string;
  email: string;
  status: string;
  signing_url?: string;
  signed_at: string | null;
  viewed_at: string | null;
  ip: string | null;
  user_agent: string | null;
  signature_text: string | null;
}
interface SignatureBody {
  id: string;
  contract_id: string;
  status: string;
  ordered: boolean;
  signers: Signer[];
  expires_at: string;
  created_at: string;
  document_hash: string;
  detail?: string;
}
interface SignerView {
  signature_id: string;
  status: string;
  contract_title: string;
  document: string;
  requested_by: { name: string };
  message: string | null;
  signer: { name: string; email: string; status: string };
  your_turn: boolean;
  detail?: string;
}
interface Certificate {
  algorithm: string;
  payload: string;
  signature: string;
  key_id: string;
}
interface Verification {
  valid: boolean;
  document_hash: string;
  signers: Array<{ name: string; email: string; signed_at: string | null }>;
  certificate: Certificate | null;
  reasons?: string[];
}
interface Payload {
  event: string;
  data: Record<string, unknown>;
  organization_id: string;
}

const CONTENT = 'MASTER SERVICES AGREEMENT\n1. Services. Supplier provides the services.\n2. Fees. Customer pays within 30 days.';

const createContract = async (u: TestUser, content = CONTENT) => {
  const res = await api<{ id: string }>('POST', '/contracts', {
    token: u.token,
    body: { title: `MSA ${randomUUID().slice(0, 8)}`, type: 'service_agreement', counterparty: 'Acme Corp', content },
  });
  expect(res.status).to.equal(201);
  return res.body.id;
};

const twoSigners = [
  { name: 'Alice Signer', email: 'alice@example.test' },
  { name: 'Bob Ångström', email: 'bob@example.test' },
];

const send = (u: TestUser, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api<SignatureBody>('POST', '/signatures', { token: u.token, body, headers });

const tokenOf = (s: Signer) => s.signing_url!.split('/').pop()!;

/** A signer's browser: no bearer, its own address and user agent. */
const signerIp = uniqueIp();
const asSigner = <T = SignerView>(method: string, token: string, suffix = '', body?: unknown) =>
  api<T>(method, `/signatures/sign/${token}${suffix}`, { body, headers: { ...fromIp(signerIp), 'user-agent': 'SignerBrowser/1.0' } });

/** Polls a GET until its body has `status` (the workflow works asynchronously). */
async function waitForStatus<T extends { status: string }>(u: TestUser, url: string, status: string): Promise<T> {
  const deadline = Date.now() + 30000;
  for (;;) {
    const res = await api<T>('GET', url, { token: u.token });
    if (res.body.status === status) return res.body;
    if (Date.now() > deadline) throw new Error(`${url} is ${res.body.status}, expected ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('signatures', () => {
  let owner: TestUser;
  let member: TestUser;
  let viewer: TestUser;
  let stranger: TestUser;
  before(async () => {
    owner = await signUp();
    [member, viewer, stranger] = await Promise.all([addMember(owner, 'member'), addMember(owner, 'viewer'), signUp()]);
  });

  it('two signers: requested, viewed, signed twice, contract active, certificate verifies (also with openssl) until the content changes', async () => {
    const receiver = await startReceiver();
    const events = ['signature.requested', 'signature.viewed', 'signature.completed', 'signature.declined'];
    const sub = await api('POST', '/webhooks/subscribe', {
      token: owner.token,
      body: { url: `${receiver.url}/hooks`, events, secret: 'receiver-shared-secret-0123456789' },
    });
    expect(sub.status).to.equal(201);
    try {
      const contractId = await createContract(owner);
      const res = await send(member, { contract_id: contractId, signers: twoSigners, message: 'Please sign by Friday' });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ contract_id: contractId, status: 'pending', ordered: false, document_hash: sha256(CONTENT) });
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).to.be.closeTo(30 * 86400000, 5000);
      expect(res.body.signers.map((x) => [x.name, x.email, x.status])).to.deep.equal([
        ['Alice Signer', 'alice@example.test', 'pending'],
        ['Bob Ångström', 'bob@example.test', 'pending'],
      ]);
      for (const x of res.body.signers) expect(x.signing_url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/sign\/[A-Za-z0-9]{43}$/);
      expect(res.text).not.to.contain('token_hash');
      const [alice, bob] = res.body.signers.map(tokenOf) as [string, string];
      // The link is stored only as its hash.
      const stored = await Signature.findById(res.body.id).lean();
      expect(stored!.signers[0]!.token_hash).to.equal(sha256(alice));
      expect(JSON.stringify(stored)).not.to.contain(alice);
      expect(stored!.workflow_id).to.equal(`signature-${res.body.id}`);

      // Later reads of the request never show the links.
      const got = await api<SignatureBody>('GET', `/signatures/${res.body.id}`, { token: viewer.token });
      expect(got.status).to.equal(200);
      expect(got.body.signers[0]).not.to.have.property('signing_url');

      const view = await asSigner('GET', alice);
      expect(view.status).to.equal(200);
      expect(view.body).to.include({ signature_id: res.body.id, document: CONTENT, message: 'Please sign by Friday', your_turn: true });
      expect(view.body.requested_by.name).to.equal('Test member');
      expect(view.body.signer).to.deep.equal({ name: 'Alice Signer', email: 'alice@example.test', status: 'viewed' });
      expect((await asSigner('GET', alice)).status).to.equal(200); // viewed once only

      const signed = await asSigner('POST', alice, '', { signature_text: 'Alice Signer' });
      expect(signed.status).to.equal(200);
      expect(signed.body.signer.status).to.equal('signed');
      const reused = await asSigner('POST', alice, '', { signature_text: 'Alice Signer' });
      expect(reused.status).to.equal(410);
      expect(reused.body.detail).to.match(/already used/);
      expect((await asSigner('GET', alice)).status).to.equal(410);

      // Bob signs without viewing first; viewing is recorded with the signature.
      expect((await asSigner('POST', bob, '', { signature_text: 'B. Signer' })).status).to.equal(200);
      const done = await waitForStatus<SignatureBody>(owner, `/signatures/${res.body.id}`, 'completed');
      expect(done.signers.map((x) => x.status)).to.deep.equal(['signed', 'signed']);
      expect(done.signers[0]).to.include({ ip: signerIp, user_agent: 'SignerBrowser/1.0', signature_text: 'Alice Signer' });

      const contract = await waitForStatus<{ status: string; signed_at: string | null }>(owner, `/contracts/${contractId}`, 'active');
      expect(contract.signed_at).to.match(/Z$/);
      // What changed is named as in every other contract.updated event.
      // Recorded just after the contract turns active: wait for it rather than race it.
      const signedUpdate = async () =>
        (await Event.find({ type: 'contract.updated' }).lean()).find(
          (e) => (e.data as { id?: string }).id === contractId && 'signed_at' in (e.data as object),
        );
      await waitFor(async () => !!(await signedUpdate()), 15000, 'the contract.updated event of the signing');
      const updates = await Event.find({ type: 'contract.updated' }).lean();
      const updated = await signedUpdate();
      expect(updated?.data, JSON.stringify(updates.map((e): unknown => e.data)))
        .to.deep.include({ changed_fields: ['status', 'signed_at'] })
        .and.not.have.property('changes');

      // Webhooks: requested, viewed (once, Alice; Bob never opened the document), completed per signer.
      const received = await receiver.waitFor(4);
      await new Promise((r) => setTimeout(r, 500));
      const payloads = receiver.received.map((r) => JSON.parse(r.body) as Payload).filter((p) => p.data.signature_id === res.body.id);
      expect(payloads.map((p) => p.event).sort()).to.deep.equal([
        'signature.completed',
        'signature.completed',
        'signature.requested',
        'signature.viewed',
      ]);
      expect(received.length).to.equal(4);
      const completed = payloads.filter((p) => p.event === 'signature.completed').map((p) => p.data);
      for (const [name, email] of [
        ['Alice Signer', 'alice@example.test'],
        ['Bob Ångström', 'bob@example.test'],
      ]) {
        expect(
          completed.some(
            (d) => d.signature_id === res.body.id && d.contract_id === contractId && d.signer_name === name && d.signer_email === email,
          ),
        ).to.equal(true);
      }
      const viewed = payloads.find((p) => p.event === 'signature.viewed')!.data;
      expect(viewed).to.include({ signer_name: 'Alice Signer', signer_email: 'alice@example.test' });

      const verify = await api<Verification>('GET', `/signatures/${res.body.id}/verify`, { token: viewer.token });
      expect(verify.status).to.equal(200);
      expect(verify.body.valid, JSON.stringify(verify.body.reasons)).to.equal(true);
      expect(verify.body.document_hash).to.equal(sha256(CONTENT));
      expect(verify.body.signers.map((x) => x.name)).to.deep.equal(['Alice Signer', 'Bob Ångström']);
      const cert = verify.body.certificate!;
      expect(cert.algorithm).to.equal('Ed25519');
      const payload = JSON.parse(cert.payload) as {
        signature_id: string;
        contract_id: string;
        document_hash: string;
        signers: unknown[];
        audit_head: string;
        issued_at: string;
        version: number;
      };
      expect(payload).to.include({ version: 1, signature_id: res.body.id, contract_id: contractId, document_hash: sha256(CONTENT) });
      expect(payload.signers).to.have.length(2);

      // Offline, exactly as the signing guide says: its shell commands run against this API.
      const pem = await api('GET', '/signatures/public-key', { headers: fromIp(signerIp) });
      expect(pem.status).to.equal(200);
      expect(pem.headers.get('content-type')).to.match(/application\/x-pem-file/);
      expect(pem.text).to.match(/^-----BEGIN PUBLIC KEY-----/);
      const readme = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'api', 'signing.md'), 'utf8');
      const script = /## Verifying a signature certificate offline[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!.replace(/^API=.*$/m, '');
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sigcert-'));
      // Asynchronously: the script's curl calls are answered by this very process.
      const { stdout: out } = await promisify(execFile)('sh', ['-e', '-c', script], {
        cwd: dir,
        env: { ...process.env, API: testEnv().baseUrl, TOKEN: owner.token, ID: res.body.id, CONTRACT_ID: contractId },
      });
      expect(out.split('\n').filter(Boolean)).to.deep.equal(['Signature Verified Successfully', cert.key_id, `${sha256(CONTENT)}  -`]);
      expect(readFileSync(path.join(dir, 'public.pem'), 'utf8')).to.equal(pem.text);
      writeFileSync(path.join(dir, 'payload.json'), cert.payload.replace('Alice', 'Alicia'));
      expect(() =>
        execFileSync(
          'openssl',
          ['pkeyutl', '-verify', '-pubin', '-inkey', 'public.pem', '-rawin', '-in', 'payload.json', '-sigfile', 'signature.bin'],
          { cwd: dir, stdio: 'pipe' },
        ),
      ).to.throw();

      // Any change to the signed content afterwards makes the evidence invalid.
      const edit = await api('PUT', `/contracts/${contractId}`, { token: owner.token, body: { content: `${CONTENT}\n3. Fees double.` } });
      expect(edit.status).to.equal(200);
      const after = await api<Verification>('GET', `/signatures/${res.body.id}/verify`, { token: owner.token });
      expect(after.body.valid).to.equal(false);
      expect(after.body.reasons).to.deep.equal(['the contract content changed after the signature request']);

      // So does tampering with the stored audit trail.
      await Signature.updateOne({ _id: res.body.id }, { $set: { 'audit_trail.1.ip': '198.51.100.1' } });
      const tampered = await api<Verification>('GET', `/signatures/${res.body.id}/verify`, { token: owner.token });
      expect(tampered.body.reasons).to.include('the audit trail is broken at entry 1');
    } finally {
      await receiver.close();
      await api('DELETE', `/webhooks/${(sub.body as { id: string }).id}`, { token: owner.token });
    }
  });

  it('ordered: only the current signer may sign; a decline ends the request and records the reason', async () => {
    const contractId = await createContract(owner);
    const res = await send(owner, { contract_id: contractId, signers: twoSigners, ordered: true, expires_in_days: 7 });
    expect(res.status).to.equal(201);
    const [alice, bob] = res.body.signers.map(tokenOf) as [string, string];

    expect((await asSigner('GET', bob)).body.your_turn).to.equal(false);
    const early = await asSigner('POST', bob, '', { signature_text: 'Bob' });
    expect(early.status).to.equal(409);
    expect(early.body.detail).to.match(/not your turn/);
    expect((await asSigner('POST', alice, '', { signature_text: 'Alice' })).status).to.equal(200);
    expect((await asSigner('GET', bob)).body.your_turn).to.equal(true);

    expect((await asSigner('POST', bob, '/decline', {})).status).to.equal(400);
    const declined = await asSigner('POST', bob, '/decline', { reason: 'Fees are too high' });
    expect(declined.status).to.equal(200);
    expect(declined.body.status).to.equal('declined');
    expect(declined.body.signer.status).to.equal('declined');
    const gone = await asSigner('POST', bob, '', { signature_text: 'Bob' });
    expect(gone.status).to.equal(410);
    expect((await api<SignatureBody>('GET', `/signatures/${res.body.id}`, { token: owner.token })).body.status).to.equal('declined');
    const [event] = await Event.find({ resource_id: res.body.id, type: 'signature.declined' }).lean();
    expect(event!.data).to.include({
      signature_id: res.body.id,
      contract_id: contractId,
      signer_name: 'Bob Ångström',
      signer_email: 'bob@example.test',
      reason: 'Fees are too high',
    });
    expect(event!.actor).to.include({ type: 'signer', name: 'Bob Ångström' });
    const verify = await api<Verification>('GET', `/signatures/${res.body.id}/verify`, { token: owner.token });
    expect(verify.body).to.include({ valid: false, certificate: null });
    expect(verify.body.reasons).to.deep.equal(['the request is declined, not completed']);
    // The workflow ends declined too, and the contract stays a draft.
    const contract = await api<{ status: string; signed_at: string | null }>('GET', `/contracts/${contractId}`, { token: owner.token });
    expect(contract.body).to.include({ status: 'draft', signed_at: null });
  });

  it('cancel: links stop working with 410, a second cancel is 409', async () => {
    const contractId = await createContract(owner);
    const res = await send(member, { contract_id: contractId, signers: twoSigners.slice(0, 1) });
    const token = tokenOf(res.body.signers[0]!);
    expect((await api('POST', `/signatures/${res.body.id}/cancel`, { token: viewer.token })).status).to.equal(403);
    const cancelled = await api<SignatureBody>('POST', `/signatures/${res.body.id}/cancel`, { token: member.token });
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body.status).to.equal('cancelled');
    const view = await asSigner('GET', token);
    expect(view.status).to.equal(410);
    expect(view.body.detail).to.equal('This signature request was cancelled');
    const again = await api<SignatureBody>('POST', `/signatures/${res.body.id}/cancel`, { token: owner.token });
    expect(again.status).to.equal(409);
    expect(again.body.detail).to.match(/already cancelled/);
    expect((await asSigner('GET', 'x'.repeat(43))).status).to.equal(404);
  });

  it('a link past its deadline answers 410 even before the workflow has closed the request', async () => {
    const res = await send(member, { contract_id: await createContract(owner), signers: twoSigners.slice(0, 1), expires_in_days: 1 });
    await Signature.updateOne({ _id: res.body.id }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    const late = await asSigner('POST', tokenOf(res.body.signers[0]!), '', { signature_text: 'Alice' });
    expect(late.status).to.equal(410);
    expect(late.body.detail).to.equal('This signing link has expired');
  });

  it('validates input, honours Idempotency-Key, lists with filters, and keeps roles and organizations apart', async () => {
    const contractId = await createContract(owner);
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [
        { contract_id: contractId, signers: [twoSigners[0], { name: 'Again', email: 'ALICE@example.test' }] },
        /^signers: signer emails must be unique$/,
      ],
      [{ contract_id: contractId, signers: [] }, /^signers: must name at least one signer$/],
      [{ contract_id: contractId, signers: [{ name: 'X', email: 'not-an-email' }] }, /^signers\.0\.email: /],
      [{ contract_id: contractId, signers: twoSigners, expires_in_days: 0 }, /^expires_in_days: must be at least 1$/],
      [{ contract_id: contractId, signers: twoSigners, expires_in_days: 366 }, /^expires_in_days: must be at most 365$/],
      [{ contract_id: { $gt: '' }, signers: twoSigners }, /^contract_id: /],
    ];
    for (const [body, detail] of bad) {
      const res = await send(member, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.detail).to.match(detail);
    }
    expect((await send(viewer, { contract_id: contractId, signers: twoSigners })).status).to.equal(403);
    expect((await send(stranger, { contract_id: contractId, signers: twoSigners })).status).to.equal(404);

    const key = { 'idempotency-key': randomUUID() };
    const first = await send(member, { contract_id: contractId, signers: twoSigners, expires_in_days: 3 }, key);
    const replay = await send(member, { contract_id: contractId, signers: twoSigners, expires_in_days: 3 }, key);
    expect(first.status).to.equal(201);
    expect(replay.status).to.equal(201);
    expect(replay.body.id).to.equal(first.body.id);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(await Signature.countDocuments({ contract_id: contractId })).to.equal(1);
    expect(Date.parse(first.body.expires_at) - Date.parse(first.body.created_at)).to.be.closeTo(3 * 86400000, 5000);

    const list = await api<{ signatures: SignatureBody[]; total: number; page: number; page_size: number }>(
      'GET',
      `/signatures?contract_id=${contractId}&status=pending&page_size=500`,
      { token: viewer.token },
    );
    expect(list.status).to.equal(200);
    expect(list.body).to.include({ total: 1, page: 1, page_size: 100 });
    expect(list.body.signatures.map((x) => x.id)).to.deep.equal([first.body.id]);
    expect(list.text).not.to.contain('signing_url');
    expect(
      (await api<{ total: number }>('GET', `/signatures?contract_id=${contractId}&status=completed`, { token: viewer.token })).body.total,
    ).to.equal(0);
    expect((await api('GET', '/signatures?status=signed', { token: viewer.token })).status).to.equal(400);

    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/verify'],
      ['POST', '/cancel'],
    ] as const) {
      expect(
        (await api(method, `/signatures/${first.body.id}${suffix}`, { token: stranger.token })).status,
        `${method} ${suffix}`,
      ).to.equal(404);
    }
    expect((await api<{ total: number }>('GET', '/signatures', { token: stranger.token })).body.total).to.equal(0);
    expect((await api('GET', '/signatures/not-an-id', { token: owner.token })).status).to.equal(404);
  });

  it('keeps no signing-link token in the stored Idempotency-Key answer; a replay shows the same working links', async () => {
    const contractId = await createContract(owner);
    const key = randomUUID();
    const body = { contract_id: contractId, signers: twoSigners };
    const first = await send(member, body, { 'idempotency-key': key });
    expect(first.status).to.equal(201);
    const tokens = first.body.signers.map(tokenOf);

    const stored = await IdempotencyKey.findOne({ key }).lean();
    expect(stored, 'the kept answer').to.not.equal(null);
    const kept = JSON.stringify(stored);
    for (const token of tokens) expect(kept).not.to.contain(token);
    expect(kept).not.to.contain('signing_url');

    const replay = await send(member, body, { 'idempotency-key': key });
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(first.body);
    // The replayed link is the signer's link.
    const view = await asSigner('GET', tokenOf(replay.body.signers[1]!));
    expect(view.status).to.equal(200);
    expect(view.body.signer).to.include({ name: 'Bob Ångström' });
  });

  it('keeps signing-link tokens and secret query parameters out of the request logs', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const { services, config } = testEnv();
    const logger = createLogger({ ...config, LOG_LEVEL: 'info' }, 'api', sink);
    const server: Server = createApp({ ...services, logger }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
      const created = await send(member, { contract_id: await createContract(owner), signers: twoSigners });
      const [alice, bob] = created.body.signers.map(tokenOf) as [string, string];
      const secrets = [
        alice,
        bob,
        'invite-secret-123456',
        'reset-secret-654321',
        'code-secret-777',
        'invite-path-secret',
        'reset-path-secret',
      ];
      const headers = { ...fromIp(signerIp), 'user-agent': 'SignerBrowser/1.0' };
      expect((await api('GET', `/signatures/sign/${alice}`, { base, headers })).status).to.equal(200);
      expect(
        (await api('POST', `/signatures/sign/${alice}?lang=en`, { base, headers, body: { signature_text: 'Alice Signer' } })).status,
      ).to.equal(200);
      expect((await api('POST', `/signatures/sign/${bob}/decline`, { base, headers, body: {} })).status).to.equal(400);
      // The front end's link paths, and secrets in a query string: unknown routes are logged too.
      for (const path of [`/sign/${bob}`, '/invite/invite-path-secret', '/reset-password/reset-path-secret'])
        await api('GET', path, { base: base.replace('/api/v1', '') });
      await api('GET', `/auth/invite?invite_token=invite-secret-123456&reset_token=reset-secret-654321&code=code-secret-777&page=2`, {
        base,
      });

      const logged = lines.join('');
      expect(logged).to.contain('/signatures/sign/[redacted]');
      expect(logged).to.contain('/sign/[redacted]/decline');
      expect(logged).to.contain('invite_token=[redacted]&reset_token=[redacted]&code=[redacted]&page=2');
      for (const secret of secrets) expect(logged, secret).not.to.contain(secret);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
