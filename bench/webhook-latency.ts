/**
 * Delay from a change (POST /contracts) to the first delivery attempt reaching a local
 * receiver, over N events, on the local engines (the shared Temporal dev server, FerretDB):
 * `source .stack/stack.env && RATE_LIMIT_DEFAULT_PER_MINUTE=100000 node --import tsx bench/webhook-latency.ts [N] [paced|burst]`
 * Runs the API and a worker in this process with their own database and task queue.
 */
import { trusted } from 'mongoose';
import { startTestEnv, stopTestEnv } from '../test/support/env';
import { signUp } from '../test/support/auth';
import { api } from '../test/support/http';
import { startReceiver } from '../test/support/receiver';
import { Event } from '../models/event';
import { WebhookDelivery } from '../models/webhook-delivery';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main() {
  const n = Number(process.argv[2] ?? 100);
  const mode = process.argv[3] === 'burst' ? 'burst' : 'paced';
  await startTestEnv();
  try {
    const owner = await signUp();
    const receiver = await startReceiver(() => 200);
    await api('POST', '/webhooks/subscribe', { token: owner.token, body: { url: receiver.url, events: ['contract.created'], secret: 'latency-secret-0123456789' } });
    const sentAt = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const t0 = Date.now();
      const res = await api<{ id: string }>('POST', '/contracts', { token: owner.token, body: { title: `Latency ${i}`, type: 'nda', counterparty: 'Bench' } });
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
      sentAt.set(res.body.id, t0);
      // paced: the next change waits for this delivery (latency without a backlog);
      // burst: changes follow each other as fast as the API answers.
      if (mode === 'paced') await receiver.waitFor(i + 1, 60000);
    }
    const received = await receiver.waitFor(n, 120000);
    const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
    const stats = (xs: number[]) => ({ median_ms: percentile(sorted(xs), 50), p95_ms: percentile(xs, 95), max_ms: xs.at(-1) });
    const contractOf = (r: { body: string }) => (JSON.parse(r.body) as { data: { id: string } }).data.id;
    // Where the time goes: change → event row → delivery row (relay) → workflow start → attempt.
    const events = new Map((await Event.find({ resource_id: trusted({ $in: [...sentAt.keys()] }) }).lean()).map((e) => [e._id.toHexString(), e]));
    const deliveries = await WebhookDelivery.find({ event_id: trusted({ $in: [...events.values()].map((e) => e._id) }) }).lean();
    // A receiver may have answered before its attempt was written to the delivery row.
    const stages = deliveries.filter((d) => d.attempt_log.length > 0).map((d) => {
      const e = events.get(d.event_id.toHexString())!;
      const t0 = sentAt.get(e.resource_id)!;
      const relayedAt = (d as unknown as { created_at: Date }).created_at.getTime();
      return { recorded: e.occurred_at.getTime() - t0, relayed: relayedAt - e.occurred_at.getTime(), attempted: d.attempt_log[0]!.at.getTime() - relayedAt };
    });
    console.log(JSON.stringify({
      events: n,
      mode,
      change_to_first_attempt: stats(received.map((r) => r.at - sentAt.get(contractOf(r))!)),
      change_to_event_row: stats(stages.map((x) => x.recorded)),
      event_row_to_delivery_row: stats(stages.map((x) => x.relayed)),
      delivery_row_to_attempt: stats(stages.map((x) => x.attempted)),
    }));
    await receiver.close();
  } finally {
    await stopTestEnv();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
