import { expect } from 'chai';
import { testEnv } from '../../support/env';
import { signUp } from '../../support/auth';
import { settled, upload } from '../../support/documents';
import { api } from '../../support/http';
import { createLocalAi } from '../../../platform/ai/local';
import { HASHING_MODEL } from '../../../platform/ai/embeddings';
import { chunkPages } from '../../../services/search/chunking';
import { embeddingText, indexChunks, indexName, refreshCollections } from '../../../services/search/vector-store';
import { startEmbeddingMigration } from '../../../services/search/embedding-migration';
import { reembedWorkflowId } from '../../../workflows/reembed.shared';

interface Citation {
  title: string;
  relevance: number;
}
const ask = (token: string, message: string) =>
  api<{ message: { content: string; citations: Citation[] } }>('POST', '/chat/send', { token, body: { message, stream: false } });

/**
 * A change of embedding model: chunks written with another model's vectors are never
 * searched with the current model's query vectors, and the migration workflow re-embeds
 * them in place.
 */
describe('embedding model change', function () {
  this.timeout(120000);

  it('hides chunks of another model from search until the migration workflow re-embeds them', async () => {
    const env = testEnv();
    const current = env.services.ai.models.embedding;
    expect(current).to.not.equal(HASHING_MODEL);
    const user = await signUp();

    // A document indexed by the current model, and an older one written with hashed vectors.
    const fresh = await upload(
      user.token,
      { name: 'Fresh.txt', bytes: Buffer.from('The harbour crane inspection happens every March.') },
      'policy',
    );
    expect((await settled(user.token, fresh.body.id)).status).to.equal('ready');
    const old = { ...env.services, ai: createLocalAi() };
    const text = 'Payment terms: the Customer pays each invoice within forty-five days of receipt by bank transfer.';
    const chunks = chunkPages([{ page: 1, text }]);
    const vectors = await old.ai.embed(chunks.map(embeddingText), 'document');
    await indexChunks(
      old,
      'knowledge_base',
      chunks.map((c, i) => ({
        organizationId: user.organizationId,
        sourceType: 'document',
        sourceId: 'legacy-document',
        title: 'Legacy terms.txt',
        page: c.page,
        section: c.section,
        startOffset: c.start,
        endOffset: c.end,
        text: c.text,
        chunkIndex: c.index,
        vector: vectors[i]!,
      })),
    );
    await refreshCollections(env.services);

    const question = 'How many days does the customer have to pay an invoice?';
    const before = await ask(user.token, question);
    expect(before.body.message.citations.map((c) => c.title)).to.not.include('Legacy terms.txt');

    const workflowId = await startEmbeddingMigration(env.services);
    expect(workflowId).to.equal(reembedWorkflowId(env.services.ai.models.embedding, env.services.config.TEMPORAL_TASK_QUEUE));
    const migrated = (await env.services.temporal.workflow.getHandle(workflowId).result()) as number;
    expect(migrated).to.be.at.least(chunks.length);

    const stored = await env.services.es.search<{ embedding_model: string; source_id: string }>({
      index: indexName(env.services, 'knowledge_base'),
      query: { term: { organization_id: user.organizationId } },
      _source: ['embedding_model', 'source_id'],
    });
    expect(stored.hits.hits.map((h) => h._source!.embedding_model)).to.satisfy(
      (models: string[]) => models.length >= 2 && models.every((m) => m === current),
    );

    const after = await ask(user.token, question);
    const legacy = after.body.message.citations.find((c) => c.title === 'Legacy terms.txt');
    expect(legacy, 'the re-embedded chunk is cited').to.exist;
    expect(legacy!.relevance).to.be.at.least(0.35);
    expect(after.body.message.content).to.include('forty-five days');

    // Nothing is left to migrate: a second run ends at once, having re-embedded nothing.
    const again = await startEmbeddingMigration(env.services);
    expect(await env.services.temporal.workflow.getHandle(again).result()).to.equal(0);
  });
});
