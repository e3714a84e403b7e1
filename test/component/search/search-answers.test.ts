/**
 * What repository search answers and accepts (issue 38): hits without the full text,
 * highlights as HTML, cursors only as this service made them, and the contract list's
 * substring search served by the index's 3-gram field.
 */
import { expect } from 'chai';
import { api } from '../../support/http';
import { testEnv } from '../../support/env';
import { signUp, type TestUser } from '../../support/auth';
import {
  aliasedIndices,
  ensureSearchIndex,
  generationIndex,
  GENERATION,
  searchAlias,
} from '../../../services/search/contract-search-index';
import { ensureSearchGeneration } from '../../../services/search/start-search-reindex';

interface Hit {
  id: string;
  title: string;
  content?: string;
  snippet: string;
  highlights: Array<{ field: string; fragment: string }>;
}
interface Answer {
  data: Hit[];
  total: number;
  next_cursor: string | null;
  detail?: string;
}
interface ListAnswer {
  contracts: Array<{ title: string }>;
  total: number;
}

describe('repository search answers', function () {
  this.timeout(120_000);
  let owner: TestUser, other: TestUser;
  const create = async (u: TestUser, body: Record<string, unknown>) => {
    const res = await api<{ id: string }>('POST', '/contracts', { token: u.token, body: { type: 'service_agreement', ...body } });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };
  const search = (u: TestUser, query: string) => api<Answer>('GET', `/search/contracts?${query}`, { token: u.token });

  before(async () => {
    [owner, other] = await Promise.all([signUp(), signUp()]);
  });

  it('answers hits with a snippet and highlights, never the full text', async () => {
    const words = Array.from({ length: 4_000 }, (_, i) => `clause${i}`).join(' ');
    const content = `Escrow of the source code with Harbour Escrow Ltd. ${words}`;
    const id = await create(owner, { title: 'Escrow agreement', counterparty: 'Harbour', content });
    const res = await search(owner, 'q=escrow');
    expect(res.status, res.text).to.equal(200);
    const [hit] = res.body.data;
    expect(hit!.id).to.equal(id);
    expect(hit).not.to.have.property('content');
    expect(hit!.snippet.startsWith('Escrow of the source code with Harbour Escrow Ltd. clause0 clause1')).to.equal(true);
    expect(hit!.snippet.length).to.be.at.most(300);
    expect(hit!.snippet.endsWith('…')).to.equal(true);
    expect(hit!.highlights.map((h) => h.field)).to.include('content');
    // The whole page is a few kilobytes, not the contract's 40,000 characters.
    expect(res.text.length).to.be.below(5_000);
    const full = await api<{ content: string }>('GET', `/contracts/${id}`, { token: owner.token });
    expect(full.body.content).to.equal(content);
  });

  it("encodes highlights as HTML: the contract's markup arrives as text", async () => {
    await create(owner, {
      title: 'Residency <b>addendum</b>',
      counterparty: 'Globex & Sons',
      content: 'Data residency: <img src=x onerror="alert(1)"> stays in the EU.',
    });
    const res = await search(owner, 'q=residency');
    expect(res.status, res.text).to.equal(200);
    const [hit] = res.body.data;
    expect(hit!.highlights).to.deep.include({
      field: 'content',
      fragment: 'Data <em>residency</em>: &lt;img src=x onerror=&quot;alert(1)&quot;&gt; stays in the EU.',
    });
    expect(hit!.highlights).to.deep.include({ field: 'title', fragment: '<em>Residency</em> &lt;b&gt;addendum&lt;&#x2F;b&gt;' });
    expect(hit!.snippet).to.equal('Data residency: <img src=x onerror="alert(1)"> stays in the EU.');
  });

  it('answers 400 {detail} to a forged or replayed cursor, and follows a genuine one', async () => {
    const forged = (k: string, v: unknown[]) => Buffer.from(JSON.stringify({ k, v })).toString('base64url');
    for (const query of [
      `cursor=${forged('-created_at', ['not a date', 'x'])}`,
      `cursor=${forged('-created_at', [{ nested: true }, 1])}`,
      `sort=value&cursor=${forged('value', ['a lot', 'x'])}`,
    ]) {
      const res = await search(owner, `page_size=1&${query}`);
      expect(res.status, `${query}: ${res.text}`).to.equal(400);
      expect(res.body.detail)
        .to.be.a('string')
        .and.match(/cursor/);
    }
    const first = await search(owner, 'page_size=1');
    expect(first.body.next_cursor).to.be.a('string');
    const next = await search(owner, `page_size=1&cursor=${first.body.next_cursor}`);
    expect(next.status, next.text).to.equal(200);
    expect(next.body.data[0]!.id).not.to.equal(first.body.data[0]!.id);
    // Its values altered under a kept MAC, or the cursor taken to another organization.
    const [body, mac] = first.body.next_cursor!.split('.');
    const altered = Buffer.from(JSON.stringify({ k: '-created_at', v: ['x', 'y'] })).toString('base64url');
    expect((await search(owner, `page_size=1&cursor=${altered}.${mac}`)).status).to.equal(400);
    expect((await search(other, `page_size=1&cursor=${body}.${mac}`)).status).to.equal(400);
  });

  it("serves the list's substring search from the 3-gram field of this generation's index", async () => {
    const { services } = testEnv();
    expect(await aliasedIndices(services)).to.deep.equal([generationIndex(services)]);
    const mapping = await services.es.indices.getMapping({ index: generationIndex(services) });
    expect(Object.values(mapping)[0]!.mappings.properties!.substrings).to.include({ type: 'text', analyzer: 'whitespace' });

    await create(owner, { title: 'Harbour crane lease (v2.0) [draft]', counterparty: 'Müller GmbH' });
    await create(owner, { title: 'Office lease', counterparty: 'Initech' });
    await create(other, { title: 'Harbour crane lease of another organization', counterparty: 'Müller GmbH' });
    const list = async (search: string) => {
      const res = await api<ListAnswer>('GET', `/contracts?search=${encodeURIComponent(search)}`, { token: owner.token });
      expect(res.status, res.text).to.equal(200);
      return res.body.contracts.map((c) => c.title).sort();
    };
    expect(await list('RBOUR CRA')).to.deep.equal(['Harbour crane lease (v2.0) [draft]']);
    expect(await list('ease')).to.deep.equal(['Harbour crane lease (v2.0) [draft]', 'Office lease']);
    expect(await list('(v2.0) [')).to.deep.equal(['Harbour crane lease (v2.0) [draft]']);
    expect(await list('müller')).to.deep.equal(['Harbour crane lease (v2.0) [draft]']);
    expect(await list('itech')).to.deep.equal(['Office lease']);
    // One and two characters, at the end of a title too; wildcard characters are text.
    expect(await list(']')).to.deep.equal(['Harbour crane lease (v2.0) [draft]']);
    expect(await list('ch')).to.deep.equal(['Office lease']);
    expect(await list('e*')).to.deep.equal([]);
    expect(await list('?')).to.deep.equal([]);
    // Words of the title and counterparty never join across the two.
    expect(await list('lease initech')).to.deep.equal([]);
  });

  it('answers the substring search from an index of the previous generation until the rebuild moves the alias', async () => {
    const { services } = testEnv();
    const current = generationIndex(services);
    // A deployment's index from before the 3-gram field: this generation's mapping without it.
    const mapping = Object.values(await services.es.indices.getMapping({ index: current }))[0]!.mappings;
    delete mapping.properties!.substrings;
    const older = generationIndex(services, GENERATION - 1);
    await services.es.indices.create({ index: older, mappings: mapping });
    // This organization's documents: in a whole run the shared index holds thousands of other tests' contracts,
    // and the rebuild below brings every contract back from the store.
    const docs = (await services.es.search({ index: current, size: 1000, query: { term: { organization_id: owner.organizationId } } })).hits
      .hits;
    await services.es.bulk({
      refresh: true,
      operations: docs.flatMap((h) => {
        const { substrings: _, ...doc } = h._source as Record<string, unknown>;
        return [{ index: { _index: older, _id: h._id! } }, doc];
      }),
    });
    await services.es.indices.updateAliases({
      actions: [{ add: { index: older, alias: searchAlias(services) } }, { remove: { index: current, alias: searchAlias(services) } }],
    });
    await services.es.indices.delete({ index: current });
    const list = async (search: string) =>
      (await api<ListAnswer>('GET', `/contracts?search=${encodeURIComponent(search)}`, { token: owner.token })).body.contracts
        .map((c) => c.title)
        .sort();
    expect(await list('RBOUR CRA')).to.deep.equal(['Harbour crane lease (v2.0) [draft]']);
    // Writes meanwhile go to both: the older index learns the new field.
    expect(await ensureSearchIndex(services)).to.equal('stale');
    const learnt = Object.values(await services.es.indices.getMapping({ index: older }))[0]!.mappings;
    expect(learnt.properties!.substrings).to.include({ type: 'text' });
    // The worker's rebuild fills this generation's index and moves the alias to it.
    const workflowId = await ensureSearchGeneration(services);
    await services.temporal.workflow.getHandle(workflowId!).result();
    expect(await aliasedIndices(services)).to.deep.equal([current]);
    expect(await list('RBOUR CRA')).to.deep.equal(['Harbour crane lease (v2.0) [draft]']);
    expect(await list('ch')).to.deep.equal(['Office lease']);
  });
});
