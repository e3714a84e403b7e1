import { expect } from 'chai';
import { trusted } from 'mongoose';
import { temporal } from '@temporalio/proto';
import { api } from '../../support/http';
import { testEnv } from '../../support/env';
import { signUp, type TestUser } from '../../support/auth';
import { waitFor } from '../../support/processes';
import { createTemporalClient } from '../../../platform/temporal/client';
import { relayEvent, relayOnRecord, relayPending } from '../../../services/wiring';
import { chunkId, indexName } from '../../../services/search/vector-store';
import { Event } from '../../../models/event';

/** The title `contracts_kb` holds for a contract's first chunk, or null when it holds none. */
async function indexedTitle(contractId: string): Promise<string | null> {
  const { services } = testEnv();
  const doc = await services.es.get<{ title: string }>(
    { index: indexName(services, 'contracts_kb'), id: chunkId(contractId, 0) },
    { ignore: [404] },
  );
  return doc.found ? doc._source!.title : null;
}

async function createContracts(user: TestUser, titles: string[]): Promise<string[]> {
  return Promise.all(
    titles.map(async (title) => {
      const res = await api<{ id: string }>('POST', '/contracts', {
        token: user.token,
        body: { title, type: 'nda', counterparty: 'Index Ltd' },
      });
      expect(res.status).to.equal(201);
      return res.body.id;
    }),
  );
}

/** The contract re-index (services/search/contract-index.ts): the contracts of events that come together share one signal. */
describe('contract re-index after contract events', function () {
  this.timeout(90_000);

  it('indexes every contract as last edited after a burst of edits', async () => {
    const user = await signUp();
    const ids = await createContracts(
      user,
      Array.from({ length: 6 }, (_, i) => `Burst ${i}`),
    );
    for (const version of ['v2', 'v3']) {
      const edits = await Promise.all(
        ids.map((id, i) => api('PUT', `/contracts/${id}`, { token: user.token, body: { title: `Burst ${i} ${version}` } })),
      );
      expect(edits.map((e) => e.status)).to.deep.equal(ids.map(() => 200));
    }
    await waitFor(
      async () => (await Promise.all(ids.map(indexedTitle))).every((t, i) => t === `Burst ${i} v3`),
      60_000,
      'every contract indexed with its last title',
    );

    // The workflow was told of every contract, in signals that each name the contracts of the events that came together.
    const history = await testEnv().services.temporal.workflow.getHandle(`index-contracts-${user.organizationId}`).fetchHistory();
    const signalled = (history.events ?? [])
      .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
      .flatMap((e) => {
        const payload = e.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!;
        return (JSON.parse(Buffer.from(payload.data!).toString('utf8')) as { contractIds: string[] }).contractIds;
      });
    expect([...new Set(signalled)].sort()).to.deep.equal([...ids].sort());
    // 18 events (6 creates, 12 edits); each contract is named at most once per signal.
    expect(signalled.length).to.be.at.most(18);
  });

  it('leaves the events of a failed signal unrelayed, and their contracts are indexed when the relay retries them', async () => {
    const { services, config } = testEnv();
    const user = await signUp();
    services.events.listen(undefined); // no immediate relay: this test relays the events itself
    let ids: string[];
    try {
      ids = await createContracts(user, ['Retry A', 'Retry B', 'Retry C']);
    } finally {
      relayOnRecord(services);
    }
    const events = await Event.find({ resource_id: trusted({ $in: ids }), type: 'contract.created' });
    expect(events).to.have.length(3);

    // Temporal cannot be reached: the signal that carries the three contracts fails, and so does each event's relay.
    const down = createTemporalClient({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE });
    const failed = await Promise.allSettled(
      events.map((e) => relayEvent({ ...services, temporal: down.client, temporalConnection: down.connection }, e.id)),
    );
    await down.connection.close();
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
    expect(await Event.countDocuments({ _id: trusted({ $in: events.map((e) => e._id) }), relayed_at: null })).to.equal(3);
    expect(await Promise.all(ids.map(indexedTitle))).to.deep.equal([null, null, null]);

    await relayPending(services, { olderThanMs: 0 });
    expect(await Event.countDocuments({ _id: trusted({ $in: events.map((e) => e._id) }), relayed_at: null })).to.equal(0);
    await waitFor(
      async () => (await Promise.all(ids.map(indexedTitle))).join('|') === 'Retry A|Retry B|Retry C',
      60_000,
      'the retried contracts indexed',
    );
  });
});
