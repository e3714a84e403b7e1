import { expect } from 'chai';
import { api } from '../../support/http';
import { testEnv, testEnvironment } from '../../support/env';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { makePdf, settled, upload } from '../../support/documents';
import { freePort, startApiProcess, type EngineProcess } from '../../support/processes';
import { startFakeGemini, textResponse } from '../../support/gemini';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../../../api/app';
import { createAi } from '../../../platform/ai';
import { EMBEDDING_DIM } from '../../../platform/ai/port';
import { loadConfig } from '../../../platform/config';
import { chunkPages } from '../../../services/search/chunking';
import { embeddingText } from '../../../services/search/vector-store';

interface SseEvent {
  type: string;
  content?: string;
  sources?: Array<{ title: string; page: number; relevance: number }>;
  conversation_id?: string;
}

interface Citation {
  title: string;
  page: number;
  section: string;
  relevance: number;
}
interface SendJson {
  conversation_id: string;
  message: { role: string; content: string; citations: Citation[]; timestamp: string };
}

/** POST /chat/send with stream: true, read to the end and split into its `data:` events. */
async function ask(token: string, message: string, conversationId?: string) {
  const res = await fetch(`${testEnv().baseUrl}/chat/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message, ...(conversationId ? { conversation_id: conversationId } : {}) }),
  });
  const text = await res.text();
  const events = text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      expect(block.startsWith('data: '), block).to.be.true;
      return JSON.parse(block.slice('data: '.length)) as SseEvent;
    });
  return { status: res.status, headers: res.headers, events, text };
}

const askJson = (token: string, message: string) => api<SendJson>('POST', '/chat/send', { token, body: { message, stream: false } });

describe('chat', function () {
  this.timeout(60000);
  let owner: TestUser;

  before(async () => {
    owner = await signUp();
    const pdf = await makePdf([
      ['1. Parties', 'This agreement is made between Northwind Traders and Contoso Harbour Ltd.'],
      ['2. Services', 'Contoso provides crane maintenance at the harbour twice a month.'],
      ['3. Escrow', 'The Zephyrine escrow deposit is 913,000 euros, held by the notary until closing.'],
    ]);
    const res = await upload(owner.token, { name: 'Harbour Agreement.pdf', bytes: pdf }, 'contract');
    expect((await settled(owner.token, res.body.id)).status).to.equal('ready');
  });

  it('streams an answer as SSE chunks, then citations with title and page, then done', async () => {
    const res = await ask(owner.token, 'How much is the Zephyrine escrow deposit?');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    expect(res.headers.get('x-accel-buffering')).to.equal('no');
    const types = res.events.map((e) => e.type);
    expect(types.at(-2)).to.equal('citations');
    expect(types.at(-1)).to.equal('done');
    expect(types.slice(0, -2).every((t) => t === 'chunk')).to.be.true;
    expect(types.length).to.be.greaterThan(4);
    const answer = res.events
      .filter((e) => e.type === 'chunk')
      .map((e) => e.content)
      .join('');
    expect(answer).to.include('913,000');
    const sources = res.events.at(-2)!.sources!;
    expect(sources[0]).to.include({ title: 'Harbour Agreement.pdf', page: 3 });
    expect(sources[0]).to.have.all.keys('title', 'page', 'relevance');
    for (const s of sources) expect(s.relevance).to.be.within(0.35, 1);
    expect(res.events.at(-1)!.conversation_id).to.match(/^[0-9a-f]{24}$/);
  });

  it("never cites another organization's document", async () => {
    const stranger = await signUp();
    const res = await ask(stranger.token, 'How much is the Zephyrine escrow deposit?');
    expect(res.status).to.equal(200);
    expect(res.events.at(-2)).to.deep.equal({ type: 'citations', sources: [] });
    expect(
      res.events
        .filter((e) => e.type === 'chunk')
        .map((e) => e.content)
        .join(''),
    ).to.not.include('913,000');
  });

  it('answers as JSON with stream false, continues a conversation and keeps its history', async () => {
    const first = await askJson(owner.token, 'Who maintains the cranes at the harbour?');
    expect(first.status).to.equal(200);
    expect(first.body.message).to.include({ role: 'assistant' });
    expect(first.body.message.content).to.include('crane maintenance');
    expect(first.body.message.citations[0]).to.deep.include({ title: 'Harbour Agreement.pdf', page: 2, section: '2. Services' });
    expect(first.body.message.timestamp).to.match(/Z$/);

    const second = await ask(owner.token, 'And how much is the Zephyrine escrow deposit?', first.body.conversation_id);
    expect(second.events.at(-1)).to.deep.equal({ type: 'done', conversation_id: first.body.conversation_id });

    const history = await api<{
      conversation_id: string;
      messages: Array<{ role: string; content: string; citations?: Citation[]; timestamp: string }>;
    }>('GET', `/chat/history?conversation_id=${first.body.conversation_id}`, { token: owner.token });
    expect(history.status).to.equal(200);
    expect(history.body.conversation_id).to.equal(first.body.conversation_id);
    expect(history.body.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant', 'user', 'assistant']);
    expect(history.body.messages[0]).to.not.have.property('citations');
    expect(history.body.messages[0]!.content).to.equal('Who maintains the cranes at the harbour?');
    expect(history.body.messages[3]!.citations![0]).to.include({ page: 3, section: '3. Escrow' });

    const list = await api<{ conversations: Array<{ conversation_id: string; title: string; message_count: number; updated_at: string }> }>(
      'GET',
      '/chat/history',
      { token: owner.token },
    );
    const listed = list.body.conversations.find((c) => c.conversation_id === first.body.conversation_id);
    expect(listed).to.include({ title: 'Who maintains the cranes at the harbour?', message_count: 4 });

    const stranger = await signUp();
    expect((await api('GET', `/chat/history?conversation_id=${first.body.conversation_id}`, { token: stranger.token })).status).to.equal(
      404,
    );
    expect((await askJson(stranger.token, 'hello')).status).to.equal(200);
    expect(
      (await api('POST', '/chat/send', { token: stranger.token, body: { message: 'x', conversation_id: first.body.conversation_id } }))
        .status,
    ).to.equal(404);
  });

  it("keeps conversations to the principal that started them: an API key and its creator do not read each other's", async () => {
    const created = await api<{ key: string }>('POST', '/settings/api-keys', { token: owner.token, body: { name: 'chat bot' } });
    expect(created.status).to.equal(201);
    const key = created.body.key;
    type List = { conversations: Array<{ conversation_id: string }> };
    const ids = async (token: string) =>
      (await api<List>('GET', '/chat/history', { token })).body.conversations.map((c) => c.conversation_id);

    const mine = await askJson(owner.token, 'Private question: who maintains the cranes?');
    const keys = await askJson(key, 'Bot question: how much is the Zephyrine escrow deposit?');
    expect(mine.status).to.equal(200);
    expect(keys.status).to.equal(200);

    expect(await ids(key)).to.deep.equal([keys.body.conversation_id]);
    expect(await ids(owner.token))
      .to.include(mine.body.conversation_id)
      .and.not.include(keys.body.conversation_id);
    // Neither reads nor continues the other's conversation.
    for (const [token, other] of [
      [key, mine.body.conversation_id],
      [owner.token, keys.body.conversation_id],
    ] as const) {
      const read = await api('GET', `/chat/history?conversation_id=${other}`, { token });
      expect(read.status).to.equal(404);
      expect(read.body).to.deep.equal({ detail: 'Conversation not found' });
      expect(
        (await api('POST', '/chat/send', { token, body: { message: 'more', conversation_id: other, stream: false } })).status,
      ).to.equal(404);
    }
    // Each continues its own.
    expect(
      (
        await api('POST', '/chat/send', {
          token: key,
          body: { message: 'and the notary?', conversation_id: keys.body.conversation_id, stream: false },
        })
      ).status,
    ).to.equal(200);
  });

  it('validates the request', async () => {
    expect((await api('POST', '/chat/send', { token: owner.token, body: {} })).body).to.deep.equal({
      detail: 'message: Invalid input: expected string, received undefined',
    });
    expect((await api('POST', '/chat/send', { token: owner.token, body: { message: '  ' } })).status).to.equal(400);
    expect((await api('POST', '/chat/send', { token: owner.token, body: { message: 'hi', stream: 'yes' } })).status).to.equal(400);
    expect((await api('POST', '/chat/send', { body: { message: 'hi' } })).status).to.equal(401);
  });

  it('applies the 0.35 cosine floor and the 28,000-character context limit', async () => {
    const user = await signUp();
    // 45 sections of exactly 1,000 characters that all match the question, each its own chunk and passage.
    const question = 'retainer fee schedule for harbour crane services';
    const section = (n: number) => {
      const head = `${n}. Retainer fee schedule ${n}\nThe retainer fee schedule for harbour crane services, instalment ${n}. `;
      return head + 'x'.repeat(1000 - head.length);
    };
    const matching = Array.from({ length: 45 }, (_, i) => section(i + 1)).join('\n');
    const many = await upload(user.token, { name: 'schedule.txt', bytes: Buffer.from(matching) }, 'other');
    expect(await settled(user.token, many.body.id)).to.include({ status: 'ready', chunk_count: 45 });

    const res = await askJson(user.token, question);
    const cited = res.body.message.citations;
    // 28 passages of 1,000 characters fill the 28,000-character context exactly; the rest stay out.
    expect(cited).to.have.length(28);
    expect(new Set(cited.map((c) => c.section)).size).to.equal(28);
    for (const c of cited) expect(c.relevance).to.be.at.least(0.35);

    // The floor: sections are cited exactly when their cosine to the question reaches 0.35.
    const other = await signUp();
    const lines = [
      'Retainer fee schedule for harbour crane services is monthly.',
      'Retainer fee schedule for the harbour.',
      'Crane services are billed by the hour at the harbour pier.',
      'Fee schedule.',
      'Office cleaning happens on Tuesdays and Fridays.',
      'The parking garage closes at midnight on weekends.',
    ];
    // Each clause long enough (over a third of a chunk) for its heading to start a chunk of its own.
    const text = lines
      .map((l, i) => `${i + 1}. Clause ${i + 1}\n${Array.from({ length: Math.ceil(450 / l.length) }, () => l).join(' ')}`)
      .join('\n');
    const graded = await upload(other.token, { name: 'graded.txt', bytes: Buffer.from(text) }, 'other');
    await settled(other.token, graded.body.id);
    const ai = testEnv().services.ai;
    const chunks = chunkPages([{ page: 1, text }]);
    const [q, ...vectors] = await ai.embed([question, ...chunks.map((c) => embeddingText({ ...c, title: 'graded.txt' }))], 'document');
    expect(chunks).to.have.length(lines.length);
    const cos = vectors.map((v) => v.reduce((sum, x, i) => sum + x * q![i]!, 0));
    const answer = await askJson(other.token, question);
    const citedSections = new Set(answer.body.message.citations.map((c) => c.section));
    const above = chunks.filter((_, i) => cos[i]! >= 0.37).map((c) => c.section);
    const below = chunks.filter((_, i) => cos[i]! < 0.33).map((c) => c.section);
    expect(above.length, `cosines ${cos.join(', ')}`).to.be.at.least(1);
    expect(below.length, `cosines ${cos.join(', ')}`).to.be.at.least(1);
    for (const s of above) expect(citedSections.has(s), `${s} is above the floor`).to.be.true;
    for (const s of below) expect(citedSections.has(s), `${s} is below the floor`).to.be.false;
  });

  it('keeps contracts_kb current on contract changes and re-indexes on sync-contracts', async () => {
    const user = await signUp();
    const question = 'What is the Quillfeather liquidated damages cap?';
    const cites = async (title: string) => (await askJson(user.token, question)).body.message.citations.some((c) => c.title === title);
    const eventually = async (check: () => Promise<boolean>, what: string) => {
      for (let i = 0; i < 40; i++) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`timed out waiting until ${what}`);
    };

    const created = await api<{ id: string }>('POST', '/contracts', {
      token: user.token,
      body: {
        title: 'Quillfeather Supply',
        type: 'service_agreement',
        counterparty: 'Quillfeather GmbH',
        content: '7. Liability\nThe Quillfeather liquidated damages cap is 2.5 million dollars per contract year.',
      },
    });
    expect(created.status).to.equal(201);
    await eventually(() => cites('Quillfeather Supply'), 'the created contract is cited');

    const renamed = await api('PUT', `/contracts/${created.body.id}`, { token: user.token, body: { title: 'Quillfeather Supply v2' } });
    expect(renamed.status).to.equal(200);
    await eventually(async () => (await cites('Quillfeather Supply v2')) && !(await cites('Quillfeather Supply')), 'the update is indexed');

    const sync = await api<{ workflow_id: string; contracts: number }>('POST', '/chat/sync-contracts', { token: user.token });
    expect(sync.status).to.equal(202);
    expect(sync.body.contracts).to.equal(1);
    expect(sync.body.workflow_id).to.match(new RegExp(`^sync-contracts-${user.organizationId}-`));
    expect(await testEnv().services.temporal.workflow.getHandle(sync.body.workflow_id).result()).to.deep.equal({ contracts: 1 });
    expect(await cites('Quillfeather Supply v2')).to.be.true;

    expect((await api('DELETE', `/contracts/${created.body.id}`, { token: user.token })).status).to.equal(204);
    await eventually(async () => !(await cites('Quillfeather Supply v2')), 'the deleted contract is gone');
    const viewer = await addMember(user, 'viewer');
    expect((await api('POST', '/chat/sync-contracts', { token: viewer.token })).status).to.equal(403);
  });

  it("reports the organization's own vector counts, index health, models and the retrieval settings", async () => {
    type Stats = {
      collections: Record<string, { vectors: number; status: string }>;
      models: Record<string, string>;
      config: Record<string, number>;
    };
    const res = await api<Stats>('GET', '/chat/stats', { token: owner.token });
    expect(res.status).to.equal(200);
    expect(res.body.collections).to.have.all.keys('contracts_kb', 'knowledge_base', 'user_documents');
    // Exactly the chunks of the owner's documents, not those of the other organizations of this run.
    const docs = await api<{ documents: Array<{ id: string }> }>('GET', '/documents?page_size=100', { token: owner.token });
    let chunks = 0;
    for (const d of docs.body.documents)
      chunks += (await api<{ chunk_count: number }>('GET', `/documents/${d.id}`, { token: owner.token })).body.chunk_count;
    expect(chunks).to.be.greaterThan(0);
    expect(res.body.collections.user_documents!.vectors).to.equal(chunks);
    for (const c of Object.values(res.body.collections)) expect(c.status).to.be.oneOf(['green', 'yellow']);
    expect(res.body.models).to.have.all.keys('primary', 'mini', 'premium', 'fallback', 'embedding');
    expect(res.body.config).to.deep.equal({ embedding_dim: 3072, min_relevance_score: 0.35, max_context_chars: 28000 });

    // A new organization has nothing indexed, whatever the others hold.
    const stranger = await api<Stats>('GET', '/chat/stats', { token: (await signUp()).token });
    expect(Object.values(stranger.body.collections).map((c) => c.vectors)).to.deep.equal([0, 0, 0]);
  });

  describe('when Elasticsearch is unreachable', function () {
    let apiProc: EngineProcess;
    before(async () => {
      apiProc = await startApiProcess({ ...testEnvironment(), ELASTICSEARCH_URL: `http://127.0.0.1:${await freePort()}` });
    });
    after(() => apiProc.stop());

    it('answers 503 with a clear detail instead of a broken stream', async () => {
      const res = await api('POST', '/chat/send', { base: `${apiProc.url}/api/v1`, token: owner.token, body: { message: 'escrow?' } });
      expect(res.status).to.equal(503);
      expect(res.body.detail).to.match(/vector store \(Elasticsearch\) is unavailable/);
      const stats = await api('GET', '/chat/stats', { base: `${apiProc.url}/api/v1`, token: owner.token });
      expect(stats.status).to.equal(503);
    });
  });
});

describe('chat: a client disconnecting mid-answer', function () {
  this.timeout(60000);
  let gemini: Awaited<ReturnType<typeof startFakeGemini>>;
  let server: Server;
  let base: string;
  before(async () => {
    // The real app and Gemini adapter, against a fake Gemini whose answer never ends.
    gemini = await startFakeGemini((call) =>
      call.method === 'streamGenerateContent'
        ? { drip: textResponse('more '), everyMs: 20 }
        : { status: 200, json: { embeddings: [{ values: Array.from({ length: EMBEDDING_DIM }, (_, i) => (i === 0 ? 1 : 0)) }] } },
    );
    const config = loadConfig({ ...testEnvironment(), GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url });
    const services = testEnv().services;
    server = createApp({ ...services, ai: createAi(config, services.logger) }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gemini.close();
  });

  it('stops the generation: the model stream is closed and no answer is stored', async () => {
    const user = await signUp();
    const client = new AbortController();
    const res = await fetch(`${base}/chat/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Tell me everything about the escrow.' }),
      signal: client.signal,
    });
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value as Uint8Array);
    expect(first).to.contain('"type":"chunk"');
    client.abort();
    // Without the abort reaching the provider this never resolves (the stream is endless).
    const [drip] = gemini.drips;
    await drip!.closed;
    expect(drip!.written).to.be.greaterThan(0);
    const history = await api<{ conversations: Array<{ message_count: number }> }>('GET', '/chat/history', { token: user.token });
    expect(history.body.conversations.map((c) => c.message_count)).to.deep.equal([1]);
  });
});
