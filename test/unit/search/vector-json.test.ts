import { expect } from 'chai';
import { hashEmbedding } from '../../../platform/ai/embeddings';
import { EMBEDDING_DIM } from '../../../platform/ai/port';
import { vectorJson } from '../../../services/search/vector-store';

describe('vectors sent to Elasticsearch', () => {
  const asStored = (v: readonly number[]) => v.map((x) => Math.fround(x));

  it('parse back to the float32 values Elasticsearch stores', () => {
    const vectors = [
      hashEmbedding('Either party may terminate this Agreement upon thirty days written notice to the other party.'),
      Array.from({ length: EMBEDDING_DIM }, (_, i) => Math.sin(i * 7.3) / 40),
      Array.from({ length: EMBEDDING_DIM }, (_, i) => (i % 5 === 0 ? 0 : (i % 3 ? -1 : 1) * 10 ** -(i % 12) * (1 + i / 9999))),
    ];
    for (const v of vectors) expect(asStored(JSON.parse(vectorJson(v)) as number[])).to.deep.equal(asStored(v));
  });

  it('is shorter than JSON.stringify for the vectors of unit length embedders make', () => {
    for (const v of [
      hashEmbedding('A supplier shall invoice the customer monthly.'),
      Array.from({ length: EMBEDDING_DIM }, (_, i) => Math.sin(i * 7.3) / 40),
    ])
      expect(vectorJson(v).length).to.be.below(JSON.stringify(v).length);
  });

  it('writes zeros, runs of zeros at either end and empty vectors as JSON', () => {
    for (const v of [[], [0], [0, 0, 0], [0, 0.5, 0, 0], [0.25, 0, 0], [-0.125]]) expect(JSON.parse(vectorJson(v))).to.deep.equal(v);
    expect(vectorJson(new Array<number>(EMBEDDING_DIM).fill(0))).to.equal(`[${new Array<string>(EMBEDDING_DIM).fill('0').join(',')}]`);
  });
});
