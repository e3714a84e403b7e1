/** The identity audit log through HTTP: rows per organization only, formats, reads logged, and a chain an edit breaks. */
import { expect } from 'chai';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { IdentityAudit } from '../../../models/identity-audit';

interface Row {
  seq: number;
  category: string;
  action: string;
  actor: { id: string | null };
  ip: string | null;
  user_agent: string | null;
  result: string;
  target: string | null;
}

const log = (u: TestUser, query = '', headers: Record<string, string> = {}) =>
  api<{ rows: Row[]; total: number }>('GET', `/audit-log${query}`, { token: u.token, headers });

/** Rows are written once each answer is sent: wait for the count to reach what the test made. */
/** The log once `ready` holds of it: rows are written after each answer is sent, and reading adds rows of its own. */
async function rowsOf(u: TestUser, min: number, ready: (rows: Row[]) => boolean = () => true): Promise<Row[]> {
  for (;;) {
    const res = await log(u);
    expect(res.status, res.text).to.equal(200);
    if (res.body.total >= min && ready(res.body.rows)) return res.body.rows;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('identity audit log', () => {
  it('shows an organization its own rows only, in JSON, CSV and JSON Lines; reading is logged; members get 403', async () => {
    const a = await signUp();
    const b = await signUp();
    const member = await addMember(a, 'member');
    await api('POST', '/settings/api-keys', {
      token: a.token,
      body: { name: 'k', role: 'viewer' },
      headers: { 'user-agent': 'audit-test/1' },
    });
    await api('POST', '/settings/api-keys', { token: b.token, body: { name: 'theirs', role: 'viewer' } });
    await api('PUT', `/team/members/${member.user.id}/role`, { token: a.token, body: { role: 'viewer' } });
    const rows = await rowsOf(
      a,
      3,
      (all) => all.some((r) => r.category === 'api_keys') && all.some((r) => r.action === 'PUT /team/members/{id}/role'),
    );
    expect(rows.every((r) => r.actor.id !== b.user.id)).to.equal(true);
    const key = rows.find((r) => r.category === 'api_keys')!;
    expect(key).to.include({ action: 'POST /settings/api-keys', result: 'success', user_agent: 'audit-test/1' });
    expect(key.ip).to.be.a('string');
    expect(rows.find((r) => r.action === 'PUT /team/members/{id}/role')).to.include({ category: 'membership', target: member.user.id });
    const bRows = await rowsOf(b, 1, (all) => all.some((r) => r.category === 'api_keys'));
    expect(bRows.some((r) => r.category === 'api_keys' && r.actor.id === b.user.id)).to.equal(true);
    expect(bRows.some((r) => r.actor.id === a.user.id)).to.equal(false);

    const csv = await api('GET', '/audit-log?category=api_keys', { token: a.token, headers: { accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.text.split('\r\n')[0]).to.equal(
      'seq,time,category,actor_type,actor_id,actor_name,ip,user_agent,action,target,result,status,hash',
    );
    const lines = await api('GET', '/audit-log?format=jsonl&category=exports', { token: a.token });
    const parsed = lines.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(parsed.length).to.be.at.least(1);
    expect(parsed.every((r) => r.category === 'exports' && r.action === 'GET /audit-log')).to.equal(true);
    expect((await log(member)).status).to.equal(403);
  });

  it('verifies the chain, and an edit of a row in the store breaks it at that row', async () => {
    const a = await signUp();
    await api('POST', '/settings/api-keys', { token: a.token, body: { name: 'k1', role: 'viewer' } });
    await api('POST', '/settings/api-keys', { token: a.token, body: { name: 'k2', role: 'viewer' } });
    await rowsOf(a, 3);
    const ok = await api<{ ok: boolean; rows: number }>('GET', '/audit-log/verify', { token: a.token });
    expect(ok.body.ok).to.equal(true);
    expect(ok.body.rows).to.be.at.least(3);
    await IdentityAudit.updateOne({ organization_id: a.organizationId, seq: 1 }, { $set: { result: 'failure' } });
    const broken = await api<{ ok: boolean; broken_at_seq: number }>('GET', '/audit-log/verify', { token: a.token });
    expect(broken.body).to.include({ ok: false, broken_at_seq: 1 });
  });

  it('exports the log as a job to CSV or JSON Lines, for its organization only, and logs the export', async () => {
    const a = await signUp();
    const b = await signUp();
    await api('POST', '/settings/api-keys', { token: a.token, body: { name: 'k1', role: 'viewer' } });
    await api('POST', '/settings/api-keys', { token: a.token, body: { name: 'k2', role: 'viewer' } });
    // Rows are written once each answer is sent: wait for both keys' rows.
    let keyRows: Row[] = [];
    while (keyRows.length < 2) {
      keyRows = (await rowsOf(a, 2)).filter((r) => r.category === 'api_keys');
      await new Promise((r) => setTimeout(r, 100));
    }

    interface Export {
      id: string;
      status: string;
      rows: number | null;
    }
    const exported = async (body: Record<string, unknown>) => {
      const started = await api<Export>('POST', '/audit-log/exports', { token: a.token, body });
      expect(started.status, started.text).to.equal(202);
      expect(started.body.status).to.equal('running');
      for (;;) {
        const st = await api<Export>('GET', `/audit-log/exports/${started.body.id}`, { token: a.token });
        expect(st.status, st.text).to.equal(200);
        if (st.body.status !== 'running') return st.body;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const csv = await exported({ format: 'csv', category: 'api_keys' });
    expect(csv).to.include({ status: 'done', rows: 2 });
    const file = await api('GET', `/audit-log/exports/${csv.id}/download`, { token: a.token });
    expect(file.status, file.text).to.equal(200);
    expect(file.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = file.text.trim().split('\r\n');
    expect(lines[0]).to.equal('seq,time,category,actor_type,actor_id,actor_name,ip,user_agent,action,target,result,status,hash');
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).to.deep.equal(keyRows.map((r) => r.seq));

    const all = await exported({ format: 'jsonl' });
    const jsonl = await api('GET', `/audit-log/exports/${all.id}/download`, { token: a.token });
    const parsed = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(parsed).to.have.length(all.rows!);
    expect(parsed.every((r) => r.actor.id !== b.user.id)).to.equal(true);
    expect(parsed.map((r) => r.seq)).to.deep.equal(parsed.map((_, i) => i));

    // Another organization's admin finds neither the export nor its file.
    expect((await api('GET', `/audit-log/exports/${all.id}`, { token: b.token })).status).to.equal(404);
    expect((await api('GET', `/audit-log/exports/${all.id}/download`, { token: b.token })).status).to.equal(404);

    // Each request is logged once its answer is sent: wait for the download's row.
    const wanted = ['POST /audit-log/exports', 'GET /audit-log/exports/{id}', 'GET /audit-log/exports/{id}/download'];
    for (;;) {
      const logged = (await rowsOf(a, 1)).filter((r) => r.category === 'exports').map((r) => r.action);
      if (wanted.every((w) => logged.includes(w))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
