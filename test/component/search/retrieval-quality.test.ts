import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { api } from '../../support/http';
import { signUp } from '../../support/auth';
import { settled, upload } from '../../support/documents';
import { testEnv } from '../../support/env';

interface LabeledSet {
  passages: Array<{ id: string; title: string; text: string }>;
  questions: Array<{ question: string; answer: string }>;
}

const set = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'fixtures/retrieval-set.json'), 'utf8')) as LabeledSet;

/**
 * Recall@5 on a labeled set of contract passages and differently worded questions: of the
 * configured embedder alone (cosine ranking), and of the whole retrieval path (int8 kNN
 * fused with BM25 in Elasticsearch, and the 0.35 floor), with the passages uploaded as one
 * document, one section each.
 */
describe('retrieval quality (labeled set)', function () {
  this.timeout(60000);

  it('ranks the answering passage in the top 5 by embedding cosine alone (recall@5 of the embedder)', async () => {
    const ai = testEnv().services.ai;
    const passages = await ai.embed(
      set.passages.map((p) => `${p.title}\n${p.text}`),
      'document',
    );
    const questions = await ai.embed(
      set.questions.map((q) => q.question),
      'query',
    );
    const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
    let hits = 0;
    const answerCosines: number[] = [];
    set.questions.forEach(({ answer }, qi) => {
      const scored = set.passages.map((p, pi) => ({ id: p.id, cos: dot(questions[qi]!, passages[pi]!) })).sort((a, b) => b.cos - a.cos);
      if (scored.slice(0, 5).some((x) => x.id === answer)) hits++;
      answerCosines.push(scored.find((x) => x.id === answer)!.cos);
    });
    const recall = hits / set.questions.length;
    const sorted = [...answerCosines].sort((a, b) => a - b);
    console.log(
      `      embedder (${ai.models.embedding}) recall@5 = ${recall.toFixed(2)} (${hits}/${set.questions.length}); median cosine of the answering passage ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}`,
    );
    expect(recall).to.be.at.least(0.9);
  });

  it('finds the answering passage among the top 5 citations through the whole path, 0.35 floor included', async () => {
    const user = await signUp();
    // Each passage padded past a third of a chunk, so its heading starts a chunk of its own.
    const text = set.passages.map((p, i) => `${i + 1}. ${p.title}\n${p.text}`.padEnd(450, ' ') + '\n').join('\n');
    const idOfSection = (section: string) => set.passages[Number(section.split('.')[0]) - 1]?.id;
    const doc = await upload(user.token, { name: 'clauses.txt', bytes: Buffer.from(text) }, 'policy');
    expect(await settled(user.token, doc.body.id)).to.include({ status: 'ready', chunk_count: set.passages.length });

    let hits = 0;
    const misses: string[] = [];
    for (const { question, answer } of set.questions) {
      const res = await api<{ message: { citations: Array<{ section: string; relevance: number }> } }>('POST', '/chat/send', {
        token: user.token,
        body: { message: question, stream: false },
      });
      expect(res.status).to.equal(200);
      // Citations come best first in the fused (vector + keyword) order.
      const top5 = res.body.message.citations.slice(0, 5).map((c) => idOfSection(c.section));
      if (top5.includes(answer)) hits++;
      else misses.push(`${question} -> ${top5.join(',') || 'nothing'}`);
    }
    const recall = hits / set.questions.length;
    console.log(
      `      end-to-end recall@5 = ${recall.toFixed(2)} (${hits}/${set.questions.length})${misses.length ? `; misses: ${misses.join(' | ')}` : ''}`,
    );
    expect(recall).to.be.at.least(0.9);
  });
});
