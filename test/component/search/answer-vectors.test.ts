import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { testEnv } from '../../support/env';
import { signUp, type TestUser } from '../../support/auth';
import { makeDocx, settled, upload } from '../../support/documents';
import { createApp } from '../../../api/app';
import { createLocalAi } from '../../../platform/ai/local';
import { openSentenceEncoder, type SentenceEncoder } from '../../../platform/ai/sentence-encoder';
import { extractiveAnswer, quotableUnits } from '../../../platform/ai/extractive-answer';
import { retrieve } from '../../../services/search/retrieval';
import { COLLECTIONS, indexName } from '../../../services/search/vector-store';

/** Plain text without headings: its chunks have no section, so their sentences are embedded as they read. */
const SUPPLY_TERMS = [
  'The Supplier will deliver the chilled goods to the Leeds warehouse every Tuesday and Friday before nine in the morning.',
  'The Customer may reject any delivery that arrives above five degrees Celsius, and the Supplier will replace it within one day at its own cost.',
  'The Supplier will keep a standby diesel generator at the Leeds warehouse to power the cold store during outages.',
  'Invoices are payable within forty-five days of receipt, and late amounts accrue interest at two percent above the base rate.',
  'Either party may end this arrangement with ninety days written notice to the other party.',
  'The Supplier will carry product liability insurance of at least five million pounds for as long as it delivers goods.',
].join('\n\n');

const QUESTIONS = [
  'Is there a backup generator for the cold store?',
  'When are invoices due?',
  'How much notice ends the arrangement?',
  'How long must the licence fee be paid?',
];

/** POST /chat/send on `base`: the answer text, as JSON or put together from the SSE chunks. */
async function answer(base: string, token: string, message: string, stream: boolean): Promise<string> {
  const res = await fetch(`${base}/chat/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message, stream }),
  });
  expect(res.status).to.equal(200);
  if (!stream) return ((await res.json()) as { message: { content: string } }).message.content;
  return (await res.text())
    .split('\n\n')
    .filter(Boolean)
    .map((block) => JSON.parse(block.slice('data: '.length)) as { type: string; content?: string })
    .filter((e) => e.type === 'chunk')
    .map((e) => e.content)
    .join('');
}

/**
 * The local answerer ranks the sentences of the best passages by the model's cosine with the
 * question; a sentence the store already holds a vector for (embedded at ingestion, the very
 * same text) is not embedded again. The API here runs the real model, every text it encodes
 * recorded.
 */
describe('answers ranked with stored sentence vectors (local provider with the model)', function () {
  this.timeout(120000);
  const encoded: string[] = [];
  let user: TestUser;
  let server: Server;
  let base: string;

  before(async () => {
    const { config, services } = testEnv();
    const model = openSentenceEncoder(config.EMBEDDING_MODEL_DIR, { threads: config.EMBEDDING_THREADS });
    if (!model) throw new Error(`no model in ${config.EMBEDDING_MODEL_DIR}: run scripts/stack.sh provision`);
    const recording: SentenceEncoder = {
      name: model.name,
      dimension: model.dimension,
      encode: (texts) => {
        encoded.push(...texts);
        return model.encode(texts);
      },
    };
    server = createApp({ ...services, ai: createLocalAi(recording) }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;

    user = await signUp();
    const docx = await makeDocx([
      { heading: 'Licence Fee', paragraphs: ['The Customer will pay the annual licence fee in advance for each year of the term.'] },
      { heading: 'Support', paragraphs: ['The Licensor will answer support requests within one business day.'] },
    ]);
    for (const file of [
      { name: 'Supply terms.txt', bytes: Buffer.from(SUPPLY_TERMS) },
      { name: 'Licence.docx', bytes: docx },
    ]) {
      const res = await upload(user.token, file, 'contract');
      expect((await settled(user.token, res.body.id)).status).to.equal('ready');
    }
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** The texts the organization's chunks store sentence vectors for. */
  async function storedSentences(): Promise<Set<string>> {
    const { services } = testEnv();
    const res = await services.es.search<{ sentences?: Array<{ text?: string }> }>({
      index: COLLECTIONS.map((c) => indexName(services, c)),
      query: { term: { organization_id: user.organizationId } },
      _source: ['sentences.text'],
      size: 100,
    });
    return new Set(res.hits.hits.flatMap((h) => (h._source?.sentences ?? []).map((s) => s.text ?? '')));
  }

  it('answers as when the model embeds every sentence, streamed and as JSON', async () => {
    const { services } = testEnv();
    expect(services.ai.models.embedding).to.equal('all-MiniLM-L6-v2');
    for (const question of QUESTIONS) {
      const context = await retrieve(services, user.organizationId, question);
      const expected = await extractiveAnswer(question, context, (texts) => services.ai.embed(texts, 'query'));
      expect(expected, question).to.match(/^From the organization's documents:\n"/);
      expect(await answer(base, user.token, question, false), question).to.equal(expected);
      expect(await answer(base, user.token, question, true), question).to.equal(expected);
    }
  });

  it('embeds at question time the question and the sentences without a stored vector, and no other', async () => {
    const { services } = testEnv();
    const stored = await storedSentences();
    // The heading leads what was embedded for a sentence under one, so only the plain text's sentences are stored as they read.
    expect(stored).to.include(SUPPLY_TERMS.split('\n\n')[2]);
    expect(stored).to.include('Licence Fee\nThe Customer will pay the annual licence fee in advance for each year of the term.');
    let reused = 0;
    for (const question of QUESTIONS) {
      const context = await retrieve(services, user.organizationId, question);
      const units = context.slice(0, 5).flatMap((p) => quotableUnits(p.text).map((u) => u.text));
      encoded.length = 0;
      expect(await answer(base, user.token, question, false)).to.include('From the organization');
      expect(encoded, question).to.include(question);
      expect(
        units.filter((u) => stored.has(u) && encoded.includes(u)),
        question,
      ).to.deep.equal([]);
      expect(
        units.filter((u) => !stored.has(u) && !encoded.includes(u)),
        question,
      ).to.deep.equal([]);
      reused += units.filter((u) => stored.has(u)).length;
    }
    expect(reused).to.be.at.least(SUPPLY_TERMS.split('\n\n').length);
  });
});
