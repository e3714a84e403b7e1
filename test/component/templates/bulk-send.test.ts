import { expect } from 'chai';
import { api } from '../../support/http';
import { signUp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { errorsOf, type ImportBody } from '../../support/imports';
import { uniqueAddress, waitForMail } from '../../support/mailbox';

/**
 * Rows of the bulk send in the main test. The issue asks 200; each row renders a PDF with
 * LibreOffice (~1.5 s, more under a shared CI's load), so the suite sends 8 by default and
 * BULK_SEND_ROWS=200 runs the size.
 */
const ROWS = Number(process.env.BULK_SEND_ROWS ?? 8);

type BulkSend = ImportBody & { kind: string; bulk_send: { template_id: string; sent: number; awaiting_approval: number } };

async function publishedTemplate(owner: TestUser): Promise<string> {
  const created = await api<{ id: string }>('POST', '/templates', {
    token: owner.token,
    body: {
      name: 'Consulting agreement',
      contract_type: 'service_agreement',
      variables: [
        { name: 'client', type: 'party', label: 'Client', required: true, key_term: 'parties' },
        { name: 'law', type: 'text', label: 'Governing law', required: true, key_term: 'governing_law' },
        { name: 'fee', type: 'money', label: 'Fee', currency: 'USD', required: true },
        { name: 'renews', type: 'yes_no', label: 'Renews', default: false },
      ],
      clauses: [],
      text: 'Consulting agreement with {{client.name}}.\nThe fee is {{fee}}.\nGoverned by the law of {{law}}.\n{{#renews}}It renews each year.{{/renews}}',
    },
  });
  expect(created.status, created.text).to.equal(201);
  const published = await api('POST', `/templates/${created.body.id}/publish`, { token: owner.token, body: {} });
  expect(published.status, published.text).to.equal(200);
  return created.body.id;
}

async function bulkSend(u: TestUser, templateId: string, text: string) {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/csv' }), 'recipients.csv');
  const res = await fetch(`${testEnv().baseUrl}/templates/${templateId}/bulk-send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${u.token}` },
    body: form,
  });
  const body = await res.text();
  return { status: res.status, body: JSON.parse(body) as BulkSend & { detail?: string }, text: body };
}

async function ended(token: string, id: string): Promise<BulkSend> {
  await testEnv()
    .services.temporal.workflow.getHandle(`bulk-send-${id}`)
    .result()
    .catch(() => undefined);
  const res = await api<BulkSend>('GET', `/imports/${id}`, { token });
  expect(res.status).to.equal(200);
  return res.body;
}

const HEADER = 'title,counterparty,client.name,law,fee.amount,renews,signer_1_name,signer_1_email';

describe('Bulk send from a template', function () {
  this.timeout(120_000 + ROWS * 6_000);

  it('drafts and sends a contract per good row, holds one for approval and reports the bad row', async () => {
    const owner = await signUp();
    const templateId = await publishedTemplate(owner);
    const policy = await api('POST', '/settings/approval-policies', {
      token: owner.token,
      body: { name: 'Foreign law', conditions: { governing_law_not_in: ['New York'] }, approvers: { kind: 'role', role: 'owner' } },
    });
    expect(policy.status, policy.text).to.equal(201);

    const bad = 3; // a fee that is not a number
    const held = 5; // governed by Delaware law: the policy holds it for approval
    const signers = new Map<string, string>();
    const lines = [HEADER];
    for (let i = 1; i <= ROWS; i++) {
      const email = uniqueAddress(`bulk-${i}`);
      const line = i + 1;
      if (line !== bad && line !== held) signers.set(`Consulting ${i}`, email);
      const fee = line === bad ? 'lots' : String(1000 + i);
      const law = line === held ? 'Delaware' : 'New York';
      lines.push(`Consulting ${i},"Client ${i}, Inc.",Client ${i},${law},${fee},${i % 2 ? 'yes' : 'no'},Signer ${i},${email}`);
    }
    const started = await bulkSend(owner, templateId, `${lines.join('\r\n')}\r\n`);
    expect(started.status, started.text).to.equal(202);
    expect(started.body.kind).to.equal('bulk_send');
    expect(started.body.rows.total).to.equal(ROWS);

    const job = await ended(owner.token, started.body.id);
    expect(job.status, job.error ?? '').to.equal('completed');
    expect(job.rows).to.deep.equal({ total: ROWS, done: ROWS - 1, failed: 1 });
    expect(job.bulk_send).to.deep.include({ template_id: templateId, sent: ROWS - 2, awaiting_approval: 1 });

    const report = await errorsOf(owner.token, job.id);
    expect([...report.keys()]).to.deep.equal([bad, held]);
    expect(report.get(bad)).to.equal('fee.amount: must be a number');
    expect(report.get(held)).to.match(/^contract [0-9a-f]{24} awaits approval \(approval [0-9a-f]{24}\); not sent$/);

    const pending = await api<{ signatures: Array<{ contract_title: string; contract_id: string; signers: Array<{ email: string }> }> }>(
      'GET',
      '/signatures?status=pending&page_size=500',
      { token: owner.token },
    );
    expect(pending.status, pending.text).to.equal(200);
    const byTitle = new Map(pending.body.signatures.map((x) => [x.contract_title, x]));
    expect([...byTitle.keys()].sort()).to.deep.equal([...signers.keys()].sort());
    for (const [title, email] of signers) expect(byTitle.get(title)!.signers.map((x) => x.email)).to.deep.equal([email]);

    // Each drafted contract is the template's, with its row's values.
    const first = byTitle.get('Consulting 1')!;
    const contract = await api<{ content: string; template: { id: string }; counterparty: string }>(
      'GET',
      `/contracts/${first.contract_id}`,
      {
        token: owner.token,
      },
    );
    expect(contract.body.template.id).to.equal(templateId);
    expect(contract.body.counterparty).to.equal('Client 1, Inc.');
    expect(contract.body.content).to.include('Consulting agreement with Client 1.').and.include('It renews each year.');

    // Every signer is mailed a link (a sample of them when the run is large).
    const sample = [...signers.values()].slice(0, 5);
    for (const email of sample) expect((await waitForMail(email, 1, 60_000))[0]!.subject).to.match(/sign/i);
  });

  it('is cancelled like an import: its workflow stops and later batches never run', async () => {
    const owner = await signUp();
    const templateId = await publishedTemplate(owner);
    // The first row renders a PDF (seconds); the other 50 are rejected at once, the last of them in a second batch.
    const lines = [HEADER, `Kept,Acme,Acme,New York,10,no,Al,${uniqueAddress('cancel')}`];
    for (let i = 0; i < 50; i++) lines.push(`Bad ${i},Acme,Acme,New York,lots,no,Al,al@example.test`);
    const started = await bulkSend(owner, templateId, `${lines.join('\r\n')}\r\n`);
    expect(started.status, started.text).to.equal(202);
    const cancelled = await api<BulkSend>('POST', `/imports/${started.body.id}/cancel`, { token: owner.token });
    expect(cancelled.status, cancelled.text).to.equal(200);
    expect(cancelled.body.status).to.equal('cancelled');

    const job = await ended(owner.token, started.body.id);
    expect(job.status).to.equal('cancelled');
    const run = await testEnv().services.temporal.workflow.getHandle(`bulk-send-${job.id}`).describe();
    expect(run.status.name).to.equal('CANCELLED');
    expect((await errorsOf(owner.token, job.id)).has(lines.length)).to.equal(false);
  });

  it('refuses a header the template does not know, or a signer without an email, before anything runs', async () => {
    const owner = await signUp();
    const templateId = await publishedTemplate(owner);
    const unknown = await bulkSend(owner, templateId, `${HEADER},colour\r\nA,B,C,New York,1,no,S,s@example.test,red\r\n`);
    expect(unknown.status, unknown.text).to.equal(400);
    expect(unknown.body.detail).to.match(/unknown column "colour"/);

    const noEmail = await bulkSend(owner, templateId, 'counterparty,client.name,law,fee.amount,signer_1_name\r\nB,C,New York,1,S\r\n');
    expect(noEmail.status, noEmail.text).to.equal(400);
    expect(noEmail.body.detail).to.match(/signer_1_email/);

    const missing = await bulkSend(
      owner,
      templateId,
      'counterparty,law,fee.amount,signer_1_name,signer_1_email\r\nB,New York,1,S,s@example.test\r\n',
    );
    expect(missing.status, missing.text).to.equal(400);
    expect(missing.body.detail).to.match(/client\.name/);

    const jobs = await api<{ total: number }>('GET', '/imports', { token: owner.token });
    expect(jobs.body.total).to.equal(0);
  });
});
