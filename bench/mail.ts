/**
 * Queued mail to the local SMTP server (GreenMail): N invitations (default 1,000) made
 * through the API (its own process) as fast as it answers, 10 in flight; each queues one
 * message whose workflow `mail-<id>` a worker process runs, sending over the pooled
 * transport. Measured from the records: throughput (messages ÷ first queued → last
 * accepted) and queued → accepted (the SMTP server's 250) per message. Baseline: the same
 * rendered messages sent straight from this process over the same transport, 10 in flight.
 *   source .stack/stack.env && node --import tsx bench/mail.ts [N]
 */
import { startApiProcess, startWorkerProcess } from '../test/support/processes';
import { mailbox, uniqueAddress } from '../test/support/mailbox';
import { OutgoingMail } from '../models/outgoing-mail';
import { createMailTransport } from '../platform/mail/transport';
import { invitationMail } from '../services/mail/messages';
import type { Config } from '../platform/config';
import { writeResult, type BenchRow } from './report';
import { closeBench, cpuMeter, enginePids, latencies, openBench, percentile, registerUser, runBench, waitForWorker } from './support';

const N = Number(process.argv[2] ?? 1000);
const IN_FLIGHT = 10;
const DRAIN_TIMEOUT_MS = 15 * 60_000;

async function pool(count: number, inFlight: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
}

/** The bare baseline: the same kind of message over the same transport; ms per send, and the whole run's ms. */
async function directSends(config: Config, count: number) {
  const transport = createMailTransport(config);
  const took: number[] = [];
  const t0 = Date.now();
  await pool(count, IN_FLIGHT, async (i) => {
    const m = invitationMail(config.publicBaseUrl, {
      inviterName: 'Bench',
      organizationName: 'Bench bench',
      role: 'viewer',
      token: `direct${i}`,
      expiresAt: new Date(),
    });
    const started = Date.now();
    await transport.sendMail({ to: uniqueAddress('direct'), subject: m.subject, text: m.text, html: m.html });
    took.push(Date.now() - started);
  });
  const totalMs = Date.now() - t0;
  transport.close();
  return { took, totalMs };
}

async function main() {
  const b = await openBench('mail');
  const api = await startApiProcess(b.env);
  const worker = startWorkerProcess(b.env);
  try {
    await waitForWorker(b);
    const apiUrl = `${api.url}/api/v1`;
    const user = await registerUser(apiUrl, 'mail');
    const addresses = Array.from({ length: N }, (_, i) => uniqueAddress(`bench-${i}`));
    const cpu = cpuMeter({ ...enginePids(), api: api.pid, worker: worker.pid });
    const t0 = Date.now();
    await pool(N, IN_FLIGHT, async (i) => {
      const res = await fetch(`${apiUrl}/team/invite`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: addresses[i], role: 'viewer' }),
      });
      if (res.status !== 201) throw new Error(`invite: ${res.status} ${await res.text()}`);
    });
    const queuedIn = Date.now() - t0;
    for (const deadline = Date.now() + DRAIN_TIMEOUT_MS; ;) {
      const [sent, failed] = await Promise.all([
        OutgoingMail.countDocuments({ status: 'sent' }),
        OutgoingMail.countDocuments({ status: 'failed' }),
      ]);
      if (failed) throw new Error(`${failed} messages failed`);
      if (sent === N) break;
      if (Date.now() > deadline) throw new Error(`only ${sent} of ${N} sent`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const runCpu = cpu();
    const records = await OutgoingMail.find({}, { queued_at: 1, sent_at: 1, attempts: 1 }).lean();
    const queuedToAccepted = records.map((m) => m.sent_at!.getTime() - m.queued_at.getTime());
    const first = Math.min(...records.map((m) => m.queued_at.getTime()));
    const last = Math.max(...records.map((m) => m.sent_at!.getTime()));
    const throughput = N / ((last - first) / 1000);
    // They did arrive: a sample of mailboxes on the server, one message each.
    const sample = addresses.filter((_, i) => i % Math.ceil(N / 20) === 0);
    const boxes = await Promise.all(sample.map((a) => mailbox(a)));
    if (boxes.some((box) => box.length !== 1)) throw new Error(`sampled mailboxes hold ${boxes.map((x) => x.length).join(',')} messages`);

    const bare = await directSends(b.config, N);
    const bareThroughput = N / (bare.totalMs / 1000);
    console.log({ queued_in_ms: queuedIn, cpu_seconds: runCpu, retried: records.filter((m) => m.attempts > 1).length });
    const rows: BenchRow[] = [
      {
        name: `${N.toLocaleString('en-US')} queued messages: throughput`,
        baseline: `direct sendMail ${bareThroughput.toFixed(0)} msg/s`,
        measured: `${throughput.toFixed(1)} msg/s (queued through the API in ${(queuedIn / 1000).toFixed(1)} s, all accepted ${((last - first) / 1000).toFixed(1)} s after the first was queued)`,
        ratio: throughput / bareThroughput,
        target: 'reported',
        met: null,
      },
      {
        name: `${N.toLocaleString('en-US')} queued messages: queued → accepted`,
        baseline: `direct sendMail ${latencies(bare.took)}`,
        measured: latencies(queuedToAccepted),
        ratio: percentile(queuedToAccepted, 50) / percentile(bare.took, 50),
        target: 'reported (median, p95)',
        met: null,
      },
    ];
    writeResult('mail', rows);
  } finally {
    await worker.stop();
    await api.stop();
    await closeBench(b);
  }
}

runBench(main);
