import { expect } from 'chai';
import { loadConfig } from '../../../platform/config';
import { createLogger } from '../../../platform/logger';
import { createAi } from '../../../platform/ai';
import { cosine } from '../../../platform/ai/embeddings';
import { EMBEDDING_DIM } from '../../../platform/ai/port';
import { openSentenceEncoder, type SentenceEncoder } from '../../../platform/ai/sentence-encoder';

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};

/**
 * The local embedding model (all-MiniLM-L6-v2, exported to ONNX by scripts/stack.sh) against
 * the cosine similarities the sentence-transformers documentation publishes for it:
 * - Quickstart (https://sbert.net/docs/quickstart.html; docs/quickstart.rst in
 *   UKPLab/sentence-transformers): the weather/sunny/stadium matrix.
 * - Semantic Textual Similarity (https://sbert.net/docs/sentence_transformer/usage/semantic_textual_similarity.html;
 *   docs/sentence_transformer/usage/semantic_textual_similarity.rst): the 3 x 3 movie/cat/guitar pairs.
 */
const PUBLISHED: Array<[string, string, number]> = [
  ['The weather is lovely today.', "It's so sunny outside!", 0.666],
  ['The weather is lovely today.', 'He drove to the stadium.', 0.1046],
  ["It's so sunny outside!", 'He drove to the stadium.', 0.1411],
  ['The new movie is awesome', 'The dog plays in the garden', 0.0543],
  ['The new movie is awesome', 'The new movie is so great', 0.8939],
  ['The new movie is awesome', 'A woman watches TV', -0.0502],
  ['The cat sits outside', 'The dog plays in the garden', 0.2838],
  ['The cat sits outside', 'The new movie is so great', -0.0029],
  ['The cat sits outside', 'A woman watches TV', 0.131],
  ['A man is playing guitar', 'The dog plays in the garden', 0.2277],
  ['A man is playing guitar', 'The new movie is so great', -0.0136],
  ['A man is playing guitar', 'A woman watches TV', -0.0327],
];

describe('local sentence encoder (all-MiniLM-L6-v2)', () => {
  const config = loadConfig({ NODE_ENV: 'test' });
  let encoder: SentenceEncoder;

  before(function () {
    const opened = openSentenceEncoder(config.EMBEDDING_MODEL_DIR, { threads: 1 });
    if (!opened) throw new Error(`no model in ${config.EMBEDDING_MODEL_DIR}: run scripts/stack.sh provision`);
    encoder = opened;
  });

  it('reproduces the published cosine similarities within 0.01', async () => {
    // One call with all sentences: batching and padding must not change a sentence's vector.
    const sentences = [...new Set(PUBLISHED.flatMap(([a, b]) => [a, b]))];
    const vectors = await encoder.encode(sentences);
    const of = (s: string) => vectors[sentences.indexOf(s)]!;
    for (const [a, b, expected] of PUBLISHED) {
      expect(dot(of(a), of(b)), `${a} / ${b}`).to.be.closeTo(expected, 0.01);
    }
  });

  it('gives a text the same vector alone and padded in a batch with longer ones', async () => {
    const short = 'Either party may terminate this Agreement.';
    const long = `${'The Supplier shall deliver the Services in accordance with the Order Form. '.repeat(8)}`;
    const [alone] = await encoder.encode([short]);
    const [inBatch] = await encoder.encode([long, short, long]).then((v) => [v[1]]);
    expect(dot(alone!, inBatch!)).to.be.closeTo(1, 1e-5);
  });

  it("embeds texts past the model's 256-token window (truncated like sentence-transformers)", async () => {
    const long = 'The Customer shall pay all invoices within thirty days. '.repeat(200);
    const [v] = await encoder.encode([long]);
    expect(v).to.have.length(384);
    expect(Math.sqrt(dot(v!, v!))).to.be.closeTo(1, 1e-5);
  });

  it('is what the local provider embeds with: zero-padded to 3072, cosine unchanged, named on the chunks', async () => {
    const ai = createAi(config, createLogger(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' })));
    expect(ai.models.embedding).to.equal('all-MiniLM-L6-v2');
    const [a, b] = await ai.embed(['The weather is lovely today.', "It's so sunny outside!"], 'query');
    expect(a).to.have.length(EMBEDDING_DIM);
    expect(a!.slice(384).every((x) => x === 0)).to.be.true;
    expect(cosine(a!, b!)).to.be.closeTo(0.666, 0.01);
  });

  it('falls back to feature hashing without the model files', () => {
    const ai = createAi(
      loadConfig({ NODE_ENV: 'test', EMBEDDING_MODEL_DIR: '/nonexistent' }),
      createLogger(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' })),
    );
    expect(ai.models.embedding).to.equal('local-hashing-3072');
  });
});
