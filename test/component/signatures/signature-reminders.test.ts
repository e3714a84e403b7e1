import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import { uniqueAddress } from '../../support/mailbox';
import { testEnv } from '../../support/env';
import { createSignatureActivities } from '../../../activities/signatures';
import { auditOf, Signature } from '../../../models/signature';
import { OutgoingMail } from '../../../models/outgoing-mail';
import { Event } from '../../../models/event';

interface SignatureBody {
  id: string;
  status: string;
  signers: Array<{ id: string; email: string; status: string }>;
}

/**
 * The reminder and expiry steps of the signature workflow against the real store, run as
 * the worker runs them (the workflow test replaces them): who is reminded, what is recorded,
 * and that a retried step repeats nothing.
 */
describe('signature reminders and expiry', function () {
  this.timeout(60000);
  let owner: TestUser;
  const activities = () => createSignatureActivities(testEnv().services);
  /** The activity as attempt `attempt` of the scheduled activity `activityId` of one workflow run. */
  const asActivity = <R>(activityId: string, step: () => Promise<R>) =>
    new MockActivityEnvironment({ activityId, workflowExecution: { workflowId: 'signature-test', runId: 'run-1' } }).run<
      [],
      R,
      () => Promise<R>
    >(step);

  before(async () => {
    owner = await signUp();
  });

  const request = async (ordered: boolean) => {
    const contract = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: `NDA ${randomUUID().slice(0, 8)}`, type: 'nda', counterparty: 'Acme Corp', content: 'Mutual NDA. Keep it secret.' },
    });
    expect(contract.status).to.equal(201);
    const signers = [
      { name: 'Alice', email: uniqueAddress('alice') },
      { name: 'Bob', email: uniqueAddress('bob') },
    ];
    const res = await api<SignatureBody>('POST', '/signatures', {
      token: owner.token,
      body: { contract_id: contract.body.id, signers, ordered, expires_in_days: 7 },
    });
    expect(res.status).to.equal(201);
    return res.body;
  };
  const reminders = (signatureId: string) => OutgoingMail.find({ kind: 'signature_reminder', 'ref.signature_id': signatureId }).lean();

  it('reminds only the signer whose turn it is, once per round, with an audit entry', async () => {
    const sig = await request(true);
    const [alice] = sig.signers as [SignatureBody['signers'][number]];
    const state = await asActivity('7', () => activities().sendSignatureReminders({ signatureId: sig.id }));
    expect(state).to.deep.equal({ status: 'pending', signers: sig.signers.map((x) => ({ id: x.id, status: 'pending' })) });
    expect((await reminders(sig.id)).map((m) => m.to)).to.deep.equal([alice.email]);
    const trail = auditOf(await Signature.findById(sig.id).orFail());
    expect(trail.at(-1)).to.deep.include({ type: 'reminded', detail: alice.email });

    // A retry of the same scheduled activity queues nothing twice; the next round mails again.
    await asActivity('7', () => activities().sendSignatureReminders({ signatureId: sig.id }));
    expect(await reminders(sig.id)).to.have.length(1);
    await asActivity('8', () => activities().sendSignatureReminders({ signatureId: sig.id }));
    expect(await reminders(sig.id)).to.have.length(2);
  });

  it('reminds every unsigned signer of an unordered request', async () => {
    const sig = await request(false);
    await asActivity('1', () => activities().sendSignatureReminders({ signatureId: sig.id }));
    expect((await reminders(sig.id)).map((m) => m.to).sort()).to.deep.equal(sig.signers.map((x) => x.email).sort());
  });

  it('expires a pending request once, telling signature.expired; afterwards reminds nobody', async () => {
    const sig = await request(false);
    await asActivity('2', () => activities().expireSignatureRequest({ signatureId: sig.id }));
    await asActivity('2', () => activities().expireSignatureRequest({ signatureId: sig.id }));
    const got = await api<SignatureBody>('GET', `/signatures/${sig.id}`, { token: owner.token });
    expect(got.body.status).to.equal('expired');
    const events = await Event.find({ type: 'signature.expired', resource_id: sig.id }).lean();
    expect(events).to.have.length(1);
    expect(events[0]!.data).to.deep.include({ signature_id: sig.id });
    expect(auditOf(await Signature.findById(sig.id).orFail()).filter((e) => e.type === 'expired')).to.have.length(1);

    const state = await asActivity('3', () => activities().sendSignatureReminders({ signatureId: sig.id }));
    expect(state?.status).to.equal('expired');
    expect(await reminders(sig.id)).to.have.length(0);
  });

  it("holds reminders to SIGNATURE_REMINDERS_MAX rounds and to the organization's daily mail quota", async () => {
    // A fresh organization: the request took 2 of its addresses for the day.
    owner = await signUp();
    const sig = await request(false);
    const { services } = testEnv();
    const limited = (config: Partial<typeof services.config>) =>
      createSignatureActivities({ ...services, config: { ...services.config, ...config } });
    // 6 addresses a day: the request's 2, one round of 2, and one more round of 2 fit; the fourth round does not.
    const quota = limited({ MAIL_RECIPIENTS_PER_ORG_PER_DAY: 6, SIGNATURE_REMINDERS_MAX: 100 });
    await asActivity('q1', () => quota.sendSignatureReminders({ signatureId: sig.id }));
    await asActivity('q2', () => quota.sendSignatureReminders({ signatureId: sig.id }));
    expect(await reminders(sig.id)).to.have.length(4);
    // A retried round takes nothing more from the quota, and queues nothing twice.
    await asActivity('q2', () => quota.sendSignatureReminders({ signatureId: sig.id }));
    const state = await asActivity('q3', () => quota.sendSignatureReminders({ signatureId: sig.id }));
    expect(state?.status).to.equal('pending');
    expect(await reminders(sig.id)).to.have.length(4);

    // The cap counts the rounds the request's trail shows, whatever the workflow believes.
    const capped = limited({ SIGNATURE_REMINDERS_MAX: 2 });
    await asActivity('c1', () => capped.sendSignatureReminders({ signatureId: sig.id }));
    expect(await reminders(sig.id)).to.have.length(4);
    const trail = auditOf(await Signature.findById(sig.id).orFail());
    expect(trail.filter((e) => e.type === 'reminded').length).to.be.at.least(2);
  });

  it('answers null for a request that is gone', async () => {
    const state = await asActivity('4', () => activities().sendSignatureReminders({ signatureId: '64b000000000000000000000' }));
    expect(state).to.equal(null);
  });
});
