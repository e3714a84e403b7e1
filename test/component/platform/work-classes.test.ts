/**
 * Interactive work never waits behind bulk work: with a backlog of bulk work queued on a bulk
 * queue no worker serves (the bulk worker paused), a person's signature request still
 * completes and is sealed, its mail and webhooks arrive and a small upload becomes ready.
 * Then a bulk worker starts and the backlog drains, so the backlog was real work on its queue.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { trusted } from 'mongoose';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { api } from '../../support/http';
import { fromIp, signUp, uniqueIp } from '../../support/auth';
import { testEnv, withSecondApi } from '../../support/env';
import { settled, upload } from '../../support/documents';
import { startReceiver } from '../../support/receiver';
import { uniqueAddress, waitForMail } from '../../support/mailbox';
import { waitFor } from '../../support/processes';
import { createWorkers } from '../../../workers/worker';
import { ContractTerms } from '../../../models/contract-terms';
import { taskQueueOf } from '../../../platform/temporal/task-queues';

const BACKLOG = 40;
const CONTENT =
  'MASTER SERVICES AGREEMENT. This Agreement ends on December 31, 2031. It renews automatically for one-year terms unless either party gives notice of non-renewal at least 60 days before the end of the then-current term.';

describe('interactive work while a bulk backlog is queued', function () {
  this.timeout(240000);

  it('signs, seals, mails, delivers webhooks and ingests an upload with the bulk worker paused; the backlog drains once it runs', async () => {
    const { services, config } = testEnv();
    const bulkQueue = `paused-bulk-${randomBytes(4).toString('hex')}`;
    const receiver = await startReceiver();
    let bulkWorkers: Worker[] = [];
    let bulkConnection: NativeConnection | undefined;
    try {
      await withSecondApi({ TEMPORAL_BULK_TASK_QUEUE: bulkQueue }, async (base) => {
        const owner = await signUp();
        const sub = await api('POST', '/webhooks/subscribe', {
          token: owner.token,
          base,
          body: {
            url: `${receiver.url}/hooks`,
            events: ['contract.created', 'signature.completed'],
            secret: 'receiver-shared-secret-0123456789',
          },
        });
        expect(sub.status, sub.text).to.equal(201);

        // The backlog: each contract with text queues its terms extraction and its re-index on the bulk queue.
        const contracts: string[] = [];
        for (let i = 0; i < BACKLOG; i++) {
          const res = await api<{ id: string }>('POST', '/contracts', {
            token: owner.token,
            base,
            body: { title: `Backlog ${i}`, type: 'service_agreement', counterparty: 'Northwind', content: CONTENT },
          });
          expect(res.status, res.text).to.equal(201);
          contracts.push(res.body.id);
        }
        const [signed] = contracts;
        const queued = `TaskQueue = "${bulkQueue}" AND ExecutionStatus = "Running"`;
        await waitFor(
          async () =>
            Number(
              (await services.temporal.workflowService.countWorkflowExecutions({ namespace: config.TEMPORAL_NAMESPACE, query: queued }))
                .count,
            ) > BACKLOG,
          30000,
          'the bulk backlog queued',
        );

        // A signature request, signed: completed and sealed, its mail sent, its webhooks delivered.
        const signer = uniqueAddress('signer');
        const request = await api<{ id: string; signers: Array<{ signing_url: string }> }>('POST', '/signatures', {
          token: owner.token,
          base,
          body: { contract_id: signed, signers: [{ name: 'Sam Signer', email: signer }] },
        });
        expect(request.status, request.text).to.equal(201);
        await waitForMail(signer, 1);
        const token = request.body.signers[0]!.signing_url.split('/').pop()!;
        const sign = await api('POST', `/signatures/sign/${token}`, {
          base,
          body: { signature_text: 'Sam Signer' },
          headers: fromIp(uniqueIp()),
        });
        expect(sign.status, sign.text).to.equal(200);
        let sealedAt: string | null = null;
        await waitFor(
          async () => {
            const got = await api<{ sealed_at: string | null }>('GET', `/signatures/${request.body.id}`, { token: owner.token, base });
            return !!(sealedAt = got.body.sealed_at);
          },
          60000,
          'the signed PDF sealed',
        );

        // A small upload becomes ready.
        const doc = await upload(
          owner.token,
          { name: 'note.txt', bytes: Buffer.from('A short note about the renewal of the hosting agreement.'), type: 'text/plain' },
          'other',
          { base },
        );
        expect(doc.status, doc.body.detail).to.equal(201);
        expect((await settled(owner.token, doc.body.id)).status).to.equal('ready');

        // Every contract.created and the completion reached the receiver.
        await receiver.waitFor(BACKLOG + 1, 60000);
        const events = receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event);
        expect(events.filter((e) => e === 'contract.created')).to.have.length(BACKLOG);
        expect(events).to.include('signature.completed');
        expect(sealedAt).to.match(/Z$/);

        // Meanwhile none of the bulk work ran.
        expect(await ContractTerms.countDocuments({ contract_id: trusted({ $in: contracts }) })).to.equal(0);

        // The bulk worker resumes: the backlog drains, every contract gets its terms.
        bulkConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
        bulkWorkers = await createWorkers(
          { ...services, config: { ...config, TEMPORAL_BULK_TASK_QUEUE: bulkQueue, WORKER_QUEUES: ['bulk'] } },
          bulkConnection,
        );
        expect(bulkWorkers.map((w) => w.options.taskQueue)).to.deep.equal([bulkQueue]);
        expect(taskQueueOf(config, 'bulk')).not.to.equal(bulkQueue);
        const running = bulkWorkers.map((w) => w.run());
        await waitFor(
          async () => (await ContractTerms.countDocuments({ contract_id: trusted({ $in: contracts }) })) === BACKLOG,
          180000,
          'the backlog digested',
        );
        for (const w of bulkWorkers) w.shutdown();
        await Promise.all(running);
      });
    } finally {
      for (const w of bulkWorkers) if (w.getState() === 'RUNNING') w.shutdown();
      await bulkConnection?.close();
      await receiver.close();
    }
  });
});
