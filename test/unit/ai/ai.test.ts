import { expect } from 'chai';
import { loadConfig } from '../../../platform/config';
import { createLogger } from '../../../platform/logger';
import { createLocalAi } from '../../../platform/ai/local';
import { createAi } from '../../../platform/ai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cosine, hashEmbedding } from '../../../platform/ai/embeddings';
import {
  ContractAnalysis,
  EMBEDDING_DIM,
  type AiPort,
  type ContextPassage,
  type DraftRequest,
  type VendorFacts,
} from '../../../platform/ai/port';
import { analyzeByClauses, draftByLibrary } from '../../../services/clauses/clause-rules';
import { analyzeText } from '../../../services/contracts/contract-ai';
import { assessVendorByRules } from '../../../services/vendors/vendor-risk-rules';
import { analyzeDocumentByRules } from '../../../services/documents/document-analysis-rules';
import { openSentenceEncoder } from '../../../platform/ai/sentence-encoder';
import { startFakeGemini, textResponse, type GeminiAnswer, type GeminiCall } from '../../support/gemini';

const ai = createLocalAi();
/** Drafting and analysis without a model: the features' rules, which answer where the local provider answers null. */
const rules = {
  analyzeContract: (input: { type: string; title: string; content: string }) => Promise.resolve(analyzeByClauses(input)),
  draftContract: (req: DraftRequest) => Promise.resolve(draftByLibrary(req)),
  assessVendor: (facts: VendorFacts) => Promise.resolve(assessVendorByRules(facts)),
  analyzeDocument: (input: { filename: string; text: string; pageCount: number }) => Promise.resolve(analyzeDocumentByRules(input)),
};

const collect = async (it: AsyncIterable<string>) => {
  let out = '';
  for await (const piece of it) out += piece;
  return out;
};

// A services agreement written for the test: it has everything a services agreement
// should, except a liability cap and a governing-law clause.
const WITHOUT_CAP_AND_LAW = `MASTER SERVICES AGREEMENT
Acme Corp shall provide software maintenance services to Globex Inc as described in each statement of work.
Acme Corp warrants that it will perform the services in a professional and workmanlike manner.
Either party may terminate this Agreement upon thirty (30) days written notice.
Each party shall keep the other party's Confidential Information confidential.
All deliverables shall be owned by Globex Inc, and Acme Corp hereby assigns all right, title and interest in them to Globex Inc.
Acme Corp shall indemnify and hold harmless Globex Inc against third-party claims.
Acme Corp shall maintain general liability insurance coverage during the term.`;

const CAP = "In no event shall either party's aggregate liability exceed the fees paid in the twelve months preceding the claim.";
const LAW = 'This Agreement shall be governed by the laws of the State of New York.';

describe('local AI provider', () => {
  it('leaves drafting and analysis to the features: it knows no contract vocabulary', async () => {
    const req = { type: 'nda', title: 'NDA', partyName: 'Acme', counterparty: 'Solid Cloud' };
    expect(await ai.draftContract(req)).to.equal(null);
    expect(await ai.analyzeContract({ type: 'nda', title: 'NDA', content: LAW })).to.equal(null);
    expect(await ai.assessVendor({ name: 'Solid Cloud', contracts: [] })).to.equal(null);
    expect(await ai.analyzeDocument({ filename: 'a.txt', text: LAW, pageCount: 1 })).to.equal(null);
  });

  describe('contract analysis (services/clauses/clause-rules.ts)', () => {
    it('reports a missing liability cap and governing law, and scores lower once they are added', async () => {
      const before = await rules.analyzeContract({ type: 'service_agreement', title: 'MSA', content: WITHOUT_CAP_AND_LAW });
      expect(ContractAnalysis.parse(before)).to.deep.equal(before);
      expect(before.analysis.missing_clauses).to.have.members(['Cap on liability', 'Governing law']);
      const after = await rules.analyzeContract({
        type: 'service_agreement',
        title: 'MSA',
        content: `${WITHOUT_CAP_AND_LAW}\n${CAP}\n${LAW}`,
      });
      expect(after.analysis.missing_clauses).to.deep.equal([]);
      expect(after.risk_score).to.be.below(before.risk_score);
      // The score is the sum of the weights of what was found missing: cap 15 + law 10.
      expect(before.risk_score - after.risk_score).to.equal(25);
    });

    it('quotes risky clauses with a recommendation and flags regulated data without safeguards', async () => {
      const text = `${WITHOUT_CAP_AND_LAW}\n${LAW}\nThe liability of Acme Corp under this Agreement shall be unlimited.\nThis Agreement renews automatically for successive one-year terms.\nAcme Corp will process personal data of Globex customers.`;
      const res = await rules.analyzeContract({ type: 'service_agreement', title: 'MSA', content: text });
      const clauses = res.analysis.key_risks.map((r) => r.clause);
      expect(clauses).to.include('The liability of Acme Corp under this Agreement shall be unlimited.');
      expect(clauses).to.include('This Agreement renews automatically for successive one-year terms.');
      expect(res.analysis.key_risks.every((r) => r.risk.length > 10 && r.recommendation.length > 10)).to.be.true;
      // Uncapped liability answers for the cap: it is a risk, not a missing clause.
      expect(res.analysis.missing_clauses).to.deep.equal([]);
      expect(res.analysis.compliance_flags.some((f) => f.startsWith('GDPR'))).to.be.true;
      expect(res.risk_score).to.equal(20 + 8 + 8);
      expect(res.analysis.risk_level).to.equal('medium');
    });

    it('holds each contract type to its own expected clauses', async () => {
      const nda = await rules.analyzeContract({ type: 'nda', title: 'NDA', content: 'The parties will talk.' });
      expect(nda.analysis.missing_clauses).to.include.members(['Confidentiality', 'Governing law', 'Term and expiration']);
      expect(nda.analysis.missing_clauses).not.to.include('Insurance');
      const lease = await rules.analyzeContract({ type: 'lease', title: 'Lease', content: 'The parties will talk.' });
      expect(lease.analysis.missing_clauses).to.include('Insurance');
    });
  });

  describe('drafting', () => {
    for (const type of ['nda', 'service_agreement', 'employment', 'consulting', 'lease']) {
      it(`drafts a ${type} with the parties, the requested term and governing law, which the analyzer finds complete`, async () => {
        const content = await rules.draftContract({
          type,
          title: 'Draft',
          partyName: 'Acme Corp',
          counterparty: 'Globex Inc',
          prompt: 'Agreement for evaluating a joint product launch, 3 years, governed by the laws of the State of Texas',
        });
        expect(content).to.include('Acme Corp').and.include('Globex Inc');
        expect(content).to.include('3 years');
        expect(content).to.include('the State of Texas');
        const analysis = await rules.analyzeContract({ type, title: 'Draft', content });
        expect(analysis.analysis.missing_clauses).to.deep.equal([]);
        expect(analysis.analysis.risk_level).to.equal('low');
      });
    }

    it('uses the purpose from the prompt and defaults the term and law when none is given', async () => {
      const content = await rules.draftContract({
        type: 'nda',
        title: 'NDA',
        partyName: 'Acme Corp',
        counterparty: 'Initech',
        prompt: 'NDA for evaluating a joint venture in Brazil',
      });
      expect(content).to.include('evaluating a joint venture in Brazil');
      expect(content).to.include('2 years');
      expect(content).to.include('the State of Delaware');
    });
  });

  describe('vendor assessment', () => {
    it('rates a vendor with no contracts and adverse notes above a certified one with a sound contract', async () => {
      const risky = await rules.assessVendor({
        name: 'Shady Cloud',
        category: 'cloud hosting',
        website: null,
        notes: 'Data breach in 2023, invoices often late',
        contracts: [],
      });
      const draft = await rules.draftContract({ type: 'service_agreement', title: 'MSA', partyName: 'Acme', counterparty: 'Solid Cloud' });
      const nda = await rules.draftContract({ type: 'nda', title: 'NDA', partyName: 'Acme', counterparty: 'Solid Cloud' });
      const sound = await rules.assessVendor({
        name: 'Solid Cloud',
        category: 'cloud hosting',
        website: 'https://solid.example',
        notes: 'SOC 2 Type II audited',
        contracts: [
          { title: 'MSA', type: 'service_agreement', status: 'active', content: draft },
          { title: 'NDA', type: 'nda', status: 'active', content: nda },
        ],
      });
      expect(risky.risk_score).to.be.above(50);
      expect(['high', 'critical']).to.include(risky.risk_level);
      expect(risky.assessment.contract_coverage).to.match(/No contract/);
      expect(risky.assessment.financial_stability).to.match(/breach/);
      expect(risky.assessment.recommendations.length).to.be.at.least(2);
      expect(sound.risk_score).to.be.below(25);
      expect(sound.risk_level).to.equal('low');
    });
  });

  describe('document analysis and answers', () => {
    it('summarizes a document, names its type and keeps the page count', async () => {
      const res = await rules.analyzeDocument({
        filename: 'lease.txt',
        text: `The Landlord leases the premises to the Tenant. ${LAW} Rent is due monthly.`,
        pageCount: 2,
      });
      expect(res.document_type).to.equal('lease');
      expect(res.page_count).to.equal(2);
      expect(res.summary).to.include('Landlord leases the premises');
      expect(res.key_terms).to.include('Governing law');
      expect(res.risks).to.include('Missing clause: Insurance');
    });

    it('streams an extractive answer built from the passages, citing them', async () => {
      const pieces: string[] = [];
      for await (const p of ai.generateAnswer({
        question: 'How much notice is needed to terminate the agreement?',
        history: [],
        context: [
          { title: 'Office lease', page: 1, section: 'Rent', text: 'Rent is due on the first day of each month.', relevance: 0.4 },
          {
            title: 'MSA Globex',
            page: 3,
            section: 'Termination',
            text: 'Either party may terminate this Agreement upon thirty days written notice.',
            relevance: 0.8,
          },
        ],
      }))
        pieces.push(p);
      expect(pieces.length).to.be.above(3);
      const answer = pieces.join('');
      expect(answer).to.include('"Either party may terminate this Agreement upon thirty days written notice." (MSA Globex, page 3) [2]');
      expect(answer).not.to.include('Rent is due');
    });

    it('says so when nothing was retrieved', async () => {
      expect(await collect(ai.generateAnswer({ question: 'What is the rent?', history: [], context: [] }))).to.match(/could not find/);
    });

    it("ranks with the stored vectors of its own model in place of embedding again, never another model's", async () => {
      const config = loadConfig({ NODE_ENV: 'test' });
      const encoder = openSentenceEncoder(config.EMBEDDING_MODEL_DIR, { threads: 1 });
      if (!encoder) throw new Error(`no model in ${config.EMBEDDING_MODEL_DIR}: run scripts/stack.sh provision`);
      const local = createLocalAi(encoder);
      const context: ContextPassage[] = [
        { title: 'MSA', page: 4, section: 'Payment', relevance: 0.5, text: 'Customer will pay each invoice within 45 days of receipt.' },
        {
          title: 'MSA',
          page: 9,
          section: 'Courts',
          relevance: 0.5,
          text: 'The parties will bring any suit about this Agreement in the courts of Boston, Massachusetts.',
        },
      ];
      // Each sentence stored with the other's vector: where they are used, the other sentence is quoted.
      const [pay, courts] = await local.embed(
        context.map((p) => p.text),
        'document',
      );
      const swapped = new Map([
        [context[0]!.text, courts!],
        [context[1]!.text, pay!],
      ]);
      const answer = (model?: string) =>
        collect(
          local.generateAnswer({
            question: 'Where are disputes heard?',
            history: [],
            context,
            storedVectors: model ? () => Promise.resolve({ model, byText: swapped }) : undefined,
          }),
        );
      const embedded = await answer();
      expect(embedded).to.include('Boston').and.not.include('45 days');
      expect(await answer('another-model')).to.equal(embedded);
      expect(await answer(local.models.embedding))
        .to.include('45 days')
        .and.not.include('Boston');
    });
  });

  describe('embeddings', () => {
    const clause = 'Either party may terminate this Agreement upon thirty days written notice to the other party.';
    const paraphrase = 'This agreement can be terminated by either party by giving 30 days notice in writing.';
    const unrelated = 'The quarterly marketing budget covers social media advertising, trade show booths and printed brochures.';

    it('embeds into 3072 L2-normalized dimensions, deterministically', async () => {
      const [a, b] = await ai.embed([clause, clause], 'document');
      expect(a).to.have.length(EMBEDDING_DIM);
      expect(Math.sqrt(a!.reduce((s, x) => s + x * x, 0))).to.be.closeTo(1, 1e-9);
      expect(a).to.deep.equal(b);
    });

    it('scores a paraphrase above 0.35 and an unrelated paragraph below', async () => {
      const [c, p, u] = await ai.embed([clause, paraphrase, unrelated], 'document');
      const related = cosine(c!, p!);
      const unrelatedScore = cosine(c!, u!);
      expect(related).to.be.above(0.35);
      expect(unrelatedScore).to.be.below(0.35);
      expect(related - unrelatedScore).to.be.above(0.3);
    });

    // Vectors of the feature-hashing embedder before its typed-array rewrite (the fixture
    // says which commit): stored chunks and new queries must keep meeting in the same space.
    it('gives feature-hashing vectors identical to those recorded before its rewrite', () => {
      const fixture = JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/hashing-embeddings.json'), 'utf8')) as {
        cases: Array<{ text: string; nonzero: Array<[number, number]> }>;
      };
      // The last case has more distinct features than the embedder's table first holds.
      expect(fixture.cases).to.have.length.above(5);
      // Twice over: the second pass reuses the embedder's feature table.
      for (const pass of [1, 2])
        for (const { text, nonzero } of fixture.cases) {
          const v = hashEmbedding(text);
          expect(v, `pass ${pass}: ${text.slice(0, 40)}`).to.have.length(EMBEDDING_DIM);
          expect(
            v.flatMap((x, i) => (x === 0 ? [] : [[i, x]])),
            `pass ${pass}: ${text.slice(0, 40)}`,
          ).to.deep.equal(nonzero);
        }
    });
  });

  it('is the provider chosen without a Gemini key', () => {
    expect(
      createAi(loadConfig({ NODE_ENV: 'test' }), createLogger(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }))).provider,
    ).to.equal('local');
  });
});

describe('Gemini provider (against a local server speaking the Gemini REST API)', () => {
  let gemini: Awaited<ReturnType<typeof startFakeGemini>>;
  let script: (call: GeminiCall) => GeminiAnswer;
  let port: AiPort;

  const analysisJson = {
    risk_score: 62,
    analysis: {
      risk_level: 'low',
      key_risks: [{ clause: 'Liability is unlimited.', risk: 'Unlimited exposure', recommendation: 'Cap it' }],
      missing_clauses: ['Governing law'],
      compliance_flags: [],
    },
  };
  const errorJson = (code: number) => ({ error: { code, message: 'model overloaded', status: 'UNAVAILABLE' } });

  before(async () => {
    gemini = await startFakeGemini((call) => script(call));
    const config = loadConfig({
      NODE_ENV: 'test',
      GEMINI_API_KEY: 'test-key',
      GEMINI_BASE_URL: gemini.url,
      GEMINI_TIMEOUT_MS: '400',
      LOG_LEVEL: 'silent',
      GEMINI_MODEL_PRIMARY: 'primary-model',
      GEMINI_MODEL_FALLBACK: 'fallback-model',
    });
    port = createAi(config, createLogger(config));
  });
  beforeEach(() => {
    gemini.calls.length = 0;
  });
  after(() => gemini.close());

  it('is the provider chosen with a key, with the configured model routing', () => {
    expect(port.provider).to.equal('gemini');
    expect(port.models).to.deep.equal({
      primary: 'primary-model',
      mini: 'gemini-2.5-flash-lite',
      premium: 'gemini-2.5-pro',
      fallback: 'fallback-model',
      embedding: 'gemini-embedding-001',
    });
  });

  it('asks for schema-shaped JSON and validates it; the analysis takes the level from the score', async () => {
    script = () => ({ status: 200, json: textResponse(JSON.stringify(analysisJson)) });
    const res = await analyzeText({ ai: port }, { type: 'nda', title: 'NDA', content: 'Liability is unlimited.' });
    expect(res.risk_score).to.equal(62);
    // The model said 'low'; one rule (services/clauses/risk-level.ts) maps 62 to 'high'.
    expect(res.analysis.risk_level).to.equal('high');
    expect(gemini.calls).to.have.length(1);
    const [call] = gemini.calls;
    expect(call!.model).to.equal('primary-model');
    expect(call!.method).to.equal('generateContent');
    expect(call!.headers['x-goog-api-key']).to.equal('test-key');
    const generationConfig = call!.body.generationConfig as Record<string, unknown>;
    expect(generationConfig.responseMimeType).to.equal('application/json');
    expect(generationConfig.responseJsonSchema).to.have.nested.property('properties.risk_score');
  });

  it('falls back to the fallback model when the primary fails', async () => {
    script = (call) =>
      call.model === 'primary-model'
        ? { status: 503, json: errorJson(503) }
        : { status: 200, json: textResponse(JSON.stringify(analysisJson)) };
    const res = (await port.analyzeContract({ type: 'nda', title: 'NDA', content: 'x' }))!;
    expect(res.risk_score).to.equal(62);
    expect(gemini.calls.map((c) => c.model)).to.deep.equal(['primary-model', 'fallback-model']);
  });

  it('falls back when the primary answers JSON that does not match the schema', async () => {
    script = (call) => ({
      status: 200,
      json: textResponse(JSON.stringify(call.model === 'primary-model' ? { ...analysisJson, risk_score: 250 } : analysisJson)),
    });
    const res = (await port.analyzeContract({ type: 'nda', title: 'NDA', content: 'x' }))!;
    expect(res.risk_score).to.equal(62);
    expect(gemini.calls.map((c) => c.model)).to.deep.equal(['primary-model', 'fallback-model']);
  });

  it('falls back when the primary times out', async () => {
    script = (call) =>
      call.model === 'primary-model' ? { hang: true } : { status: 200, json: textResponse(JSON.stringify(analysisJson)) };
    const started = Date.now();
    const res = (await port.analyzeContract({ type: 'nda', title: 'NDA', content: 'x' }))!;
    expect(res.risk_score).to.equal(62);
    expect(Date.now() - started).to.be.within(350, 5000);
  });

  it('fails when the fallback fails too', async () => {
    script = () => ({ status: 500, json: errorJson(500) });
    let error: unknown;
    await port.assessVendor({ name: 'V', contracts: [] }).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect(gemini.calls).to.have.length(2);
  });

  it('routes drafting to the premium model and returns the content', async () => {
    script = () => ({ status: 200, json: textResponse(JSON.stringify({ content: 'NDA between Acme and Globex' })) });
    expect(await port.draftContract({ type: 'nda', title: 'NDA', partyName: 'Acme', counterparty: 'Globex' })).to.equal(
      'NDA between Acme and Globex',
    );
    expect(gemini.calls[0]!.model).to.equal('gemini-2.5-pro');
  });

  it('streams an answer over SSE, falling back before the first piece', async () => {
    script = (call) =>
      call.model === 'primary-model'
        ? { status: 503, json: errorJson(503) }
        : { sse: [textResponse('Notice is '), textResponse('thirty days [1].')] };
    const answer = await collect(
      port.generateAnswer({
        question: 'Notice?',
        history: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
        context: [{ title: 'MSA', page: 1, section: 'Termination', text: 'thirty days notice', relevance: 0.9 }],
      }),
    );
    expect(answer).to.equal('Notice is thirty days [1].');
    expect(gemini.calls.map((c) => `${c.model}:${c.method}`)).to.deep.equal([
      'primary-model:streamGenerateContent',
      'fallback-model:streamGenerateContent',
    ]);
    const contents = gemini.calls[1]!.body.contents as Array<{ role: string }>;
    expect(contents.map((c) => c.role)).to.deep.equal(['user', 'model', 'user']);
  });

  it('embeds in batches of 100 at 3072 dimensions and normalizes', async () => {
    script = (call) => {
      const requests = call.body.requests as unknown[];
      return {
        status: 200,
        json: {
          embeddings: requests.map((_, i) => ({
            values: Array.from({ length: EMBEDDING_DIM }, (__, j) => (j === i % EMBEDDING_DIM ? 2 : 0)),
          })),
        },
      };
    };
    const texts = Array.from({ length: 150 }, (_, i) => `text ${i}`);
    const vectors = await port.embed(texts, 'query');
    expect(vectors).to.have.length(150);
    expect(vectors[0]![0]).to.equal(1);
    expect(gemini.calls.map((c) => `${c.model}:${c.method}`)).to.deep.equal([
      'gemini-embedding-001:batchEmbedContents',
      'gemini-embedding-001:batchEmbedContents',
    ]);
    const first = (gemini.calls[0]!.body.requests as Array<Record<string, unknown>>)[0]!;
    expect(first).to.include({ outputDimensionality: EMBEDDING_DIM, taskType: 'RETRIEVAL_QUERY', model: 'models/gemini-embedding-001' });
  });
});
