import { expect } from 'chai';
import { api } from '../../support/http';
import { signUp } from '../../support/auth';
import { settled, upload } from '../../support/documents';
import { testEnv } from '../../support/env';
import { embedChunks } from '../../../services/search/vector-store';

interface Citation {
  title: string;
  section: string;
  relevance: number;
}

const ANSWER = 'The Supplier will keep a standby diesel generator at the Leeds warehouse to power the cold store during outages.';
/** One clause of many unrelated sentences around the one that answers, small enough to be one chunk. */
const CLAUSE = [
  '12. General Terms',
  'Any notice under this Agreement must be in writing and is deemed given upon confirmed delivery.',
  'This Agreement may be signed in counterparts, each of which is deemed an original.',
  'If any provision is held unenforceable, the remaining provisions stay in full force and effect.',
  'Neither party will export the software in violation of applicable export control laws.',
  'Neither party will offer or accept bribes in connection with this Agreement.',
  'The parties are independent contractors and neither may bind the other.',
  'Section titles are for convenience only and do not affect interpretation.',
  ANSWER,
  'Each party bears its own costs of negotiating and signing this Agreement.',
  'No failure or delay in exercising any right operates as a waiver of that right.',
  'This Agreement is the entire agreement of the parties about its subject.',
].join('\n');
const QUESTION = 'Is there a backup generator for the cold store?';

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/**
 * A chunk is found by its best sentence: one sentence that answers, inside a clause of many
 * that do not, is cited although the clause as a whole stays under the 0.35 floor.
 */
describe('retrieval by sentence vectors', function () {
  this.timeout(60000);

  it('cites a chunk whose one answering sentence reaches the floor while the whole chunk does not', async () => {
    const ai = testEnv().services.ai;
    // The premise, with the vectors ingestion makes: the clause alone would not be cited, its sentence would.
    const [question] = await ai.embed([QUESTION], 'query');
    const [clause] = await embedChunks(ai, [{ title: 'Supply terms.txt', section: '12. General Terms', text: CLAUSE }]);
    expect(dot(question!, clause!.vector)).to.be.below(0.35);
    expect(Math.max(...clause!.sentences.map((s) => dot(question!, s.vector)))).to.be.at.least(0.35);

    const user = await signUp();
    const doc = await upload(user.token, { name: 'Supply terms.txt', bytes: Buffer.from(CLAUSE) }, 'contract');
    expect(await settled(user.token, doc.body.id)).to.include({ status: 'ready', chunk_count: 1 });

    const res = await api<{ message: { content: string; citations: Citation[] } }>('POST', '/chat/send', {
      token: user.token,
      body: { message: QUESTION, stream: false },
    });
    expect(res.status).to.equal(200);
    const cited = res.body.message.citations.find((c) => c.title === 'Supply terms.txt');
    expect(cited, JSON.stringify(res.body.message.citations)).to.not.equal(undefined);
    expect(cited!.relevance).to.be.at.least(0.35);
    expect(res.body.message.content).to.include(ANSWER);
  });
});
