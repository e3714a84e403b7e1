import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { api } from '../../support/http';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { testEnv } from '../../support/env';
import { wordDocx, type Block } from '../../support/word-xml';
import { Document } from '../../../models/document';

interface Template {
  id: string;
  status: string;
  published_version: number | null;
  variables_schema: { properties: Record<string, { title?: string; default?: unknown }>; required?: string[] };
}
interface Contract {
  id: string;
  content: string;
  document_id: string;
  docx_document_id: string;
  template: { id: string; version: number; name: string };
  clauses: Array<{ type: string; position: number; version: number }>;
  approval: { id: string; status: string } | null;
}

/** POST a template (or a version) as multipart: the file and its declarations as a JSON part. */
async function postTemplate(u: TestUser, url: string, file: Buffer, definition: unknown) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)]), 'template.docx');
  form.append('definition', new Blob([JSON.stringify(definition)], { type: 'application/json' }), 'definition.json');
  const res = await fetch(`${testEnv().baseUrl}${url}`, { method: 'POST', headers: { authorization: `Bearer ${u.token}` }, body: form });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Template & { detail?: string }, text, code: res.headers.get('x-error-code') };
}

const VARIABLES = [
  { name: 'client', type: 'party', label: 'Client', key_term: 'parties' },
  { name: 'provider', type: 'party', label: 'Provider', key_term: 'parties' },
  { name: 'effective', type: 'date', label: 'Effective date', key_term: 'effective_date' },
  { name: 'fee', type: 'money', label: 'Monthly fee', currency: 'USD' },
  { name: 'payment_days', type: 'number', label: 'Payment days', default: 30, key_term: 'payment_terms' },
  {
    name: 'law',
    type: 'choice',
    label: 'Governing law',
    options: ['New York', 'Delaware', 'England and Wales'],
    key_term: 'governing_law',
  },
  { name: 'renews', type: 'yes_no', label: 'Renews automatically', key_term: 'auto_renewal' },
  {
    name: 'items',
    type: 'rows',
    label: 'Services',
    columns: [
      { name: 'service', label: 'Service' },
      { name: 'price', label: 'Price', type: 'money' },
    ],
  },
];

/** A services agreement as Word saves it: tags split across runs of different formatting, a table row that repeats. */
function agreement(extra: Block[] = []): Buffer {
  return wordDocx([
    { p: ['MASTER SERVICES AGREEMENT'], style: 'Heading1' },
    // Word split {{client.name}} into three runs: the first bold, a proofing mark around the middle.
    {
      p: [
        'This Agreement is made on ',
        '{{effective}}',
        ' between ',
        { text: '{{cli', bold: true },
        { text: 'ent.na', bold: true, proofErr: true },
        { text: 'me}}', bold: true },
        ' of {{client.address}} and {{provider.name}}.',
      ],
    },
    {
      p: [
        'The Client shall pay ',
        { text: '{{', italic: true },
        { text: 'fee}}', italic: true },
        ' per month, within {{payment_days}} days of each invoice.',
      ],
    },
    {
      table: [
        [['Service'], ['Price']],
        [['{{#items}}{{service}}'], ['{{price}}{{/items}}']],
      ],
    },
    { p: ['{{#renews}}This Agreement renews automatically for successive one-year terms.{{/renews}}'] },
    { p: ['{{^renews}}This Agreement ends at the end of its term.{{/renews}}'] },
    { p: ['{{clause.governing_law}}'] },
    { p: ['{{clause.liability_cap}}'] },
    { p: ['Signed for the Client by {{client.signatory}}.'] },
    ...extra,
  ]);
}

const definition = (extra: Record<string, unknown> = {}) => ({
  name: 'Master services agreement',
  contract_type: 'service_agreement',
  variables: VARIABLES,
  clauses: ['governing_law', 'liability_cap'],
  ...extra,
});

const VALUES = {
  client: { name: 'Northwind Traders Ltd', address: '12 Harbour Road, Boston', signatory: 'Ada Byron, CEO' },
  provider: { name: 'Acme Services Inc' },
  effective: '2026-03-01',
  fee: { amount: 12500 },
  law: 'New York',
  renews: true,
  items: [
    { service: 'Hosting', price: { amount: 10000, currency: 'USD' } },
    { service: 'Support', price: { amount: 2500, currency: 'USD' } },
  ],
};

describe('templates and drafting from them', function () {
  this.timeout(180000);
  let owner: TestUser;
  let member: TestUser;
  let policyId: string;
  let template: Template;

  before(async () => {
    owner = await signUp();
    member = await addMember(owner, 'member');
    const policy = await api<{ id: string }>('POST', '/settings/approval-policies', {
      token: owner.token,
      body: {
        name: 'Legal approves conceded caps',
        conditions: { only_for_clause_fallbacks: true },
        approvers: { kind: 'role', role: 'admin' },
      },
    });
    expect(policy.status, policy.text).to.equal(201);
    policyId = policy.body.id;
    for (const clause of [
      {
        type: 'governing_law',
        title: 'Governing law',
        preferred: {
          text: 'This Agreement is governed by the laws of the State of {{law}}.',
          variables: [{ name: 'law', type: 'text', label: 'Law' }],
          term_value: 'New York',
        },
      },
      {
        type: 'liability_cap',
        title: 'Limitation of liability',
        preferred: {
          text: "Each party's total liability under this Agreement will not exceed the fees paid in the 12 months before the claim.",
        },
        fallbacks: [
          {
            text: "Each party's total liability under this Agreement will not exceed twice the fees paid in the 12 months before the claim.",
            needs_approval: true,
            approval_policy_id: policyId,
          },
        ],
      },
    ]) {
      const res = await api('POST', '/clauses', { token: owner.token, body: clause });
      expect(res.status, res.text).to.equal(201);
    }
  });

  it('reports every malformed, unknown or split-across-paragraphs tag with where it sits, as one 400', async () => {
    const bad = agreement([
      { p: ['The fee is {{fee + 1}} and {{ unknown_thing }} applies.'] },
      // A tag Word split across two paragraphs cannot render: it is reported at its opening paragraph.
      { p: ['Notices go to {{client'] },
      { p: ['.address}} by post.'] },
      { p: ['{{#law}}conditional on a required choice{{/law}}'] },
    ]);
    const res = await postTemplate(owner, '/templates', bad, definition());
    expect(res.status, res.text).to.equal(400);
    expect(res.code).to.equal('template_invalid');
    const detail = res.body.detail!;
    expect(detail).to.match(/\{\{fee \+ 1\}\} at paragraph 14 of the body.*malformed/);
    expect(detail).to.match(/\{\{ unknown_thing \}\} at paragraph 14 of the body.*names no declared variable/);
    expect(detail).to.match(/\{\{client at paragraph 15 of the body.*not closed in this paragraph/);
    expect(detail).to.match(/\.address\}\} by post\. at paragraph 16 of the body|address\}\} at paragraph 16/);
    expect(detail).to.match(/\{\{#law\}\} at paragraph 17 of the body.*section needs a yes_no, rows or optional variable/);
    // The split-run tag {{client.name}} (paragraph 2) is not among the problems: it renders.
    expect(detail).not.to.match(/paragraph 2 of/);
    expect((await api('GET', '/templates', { token: owner.token })).body).to.deep.equal({ templates: [] });
  });

  it('refuses a DOCX with external relationships or macros', async () => {
    const external = wordDocx([{ p: ['{{x}}'] }], {
      extraRels:
        '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="http://169.254.169.254/latest" TargetMode="External"/>',
    });
    const ext = await postTemplate(owner, '/templates', external, {
      name: 'x',
      contract_type: 'nda',
      variables: [{ name: 'x', type: 'text', label: 'X' }],
    });
    expect(ext.status, ext.text).to.equal(400);
    expect(ext.body.detail).to.match(/external relationship/);
    const macro = wordDocx([{ p: ['{{x}}'] }], { extraFiles: { 'word/vbaProject.bin': 'not really vba' } });
    const mac = await postTemplate(owner, '/templates', macro, {
      name: 'x',
      contract_type: 'nda',
      variables: [{ name: 'x', type: 'text', label: 'X' }],
    });
    expect(mac.status, mac.text).to.equal(400);
    expect(mac.body.detail).to.match(/macro-enabled/);
  });

  it('stores a template whose tags Word split across runs, with its variables as a JSON Schema; members see it once published', async () => {
    const res = await postTemplate(owner, '/templates', agreement(), definition());
    expect(res.status, res.text).to.equal(201);
    template = res.body;
    expect(template.status).to.equal('draft');
    const schema = template.variables_schema;
    expect(schema.properties.fee!.title).to.equal('Monthly fee');
    expect(schema.properties.payment_days!.default).to.equal(30);
    expect(schema.required).to.include.members(['client', 'fee', 'effective', 'law', 'renews']);
    expect(schema.required).not.to.include('payment_days');

    expect((await api('GET', `/templates/${template.id}`, { token: member.token })).status).to.equal(404);
    expect((await api('POST', `/templates/${template.id}/publish`, { token: member.token, body: {} })).status).to.equal(403);
    const published = await api<Template>('POST', `/templates/${template.id}/publish`, { token: owner.token, body: {} });
    expect(published.status, published.text).to.equal(200);
    expect(published.body.published_version).to.equal(1);
    const seen = await api<{ templates: Template[] }>('GET', '/templates', { token: member.token });
    expect(seen.body.templates.map((t) => t.id)).to.deep.equal([template.id]);
  });

  it('names every wrong variable at once', async () => {
    const res = await api('POST', '/contracts', {
      token: member.token,
      body: {
        template_id: template.id,
        counterparty: 'Northwind',
        variables: { ...VALUES, effective: '1 March', fee: { amount: -5 }, law: 'Mars', client: { address: 'x' }, surprise: 1 },
        clauses: { liability_cap: 7 },
      },
    });
    expect(res.status, res.text).to.equal(400);
    const detail = String(res.body.detail);
    for (const field of [
      'variables.effective',
      'variables.fee.amount',
      'variables.law',
      'variables.client.name',
      'variables: "surprise"',
      'clauses.liability_cap',
    ])
      expect(detail).to.contain(field);
  });

  it('drafts a contract: DOCX and PDF of record stored, content filled, version 1 records the template, key terms from the template', async () => {
    const res = await api<Contract>('POST', '/contracts', {
      token: member.token,
      body: { template_id: template.id, counterparty: 'Northwind Traders Ltd', title: 'MSA Northwind', variables: VALUES },
    });
    expect(res.status, res.text).to.equal(201);
    const c = res.body;
    expect(c.content).to.contain(
      'This Agreement is made on 1 March 2026 between Northwind Traders Ltd of 12 Harbour Road, Boston and Acme Services Inc.',
    );
    expect(c.content).to.contain('The Client shall pay USD 12,500.00 per month, within 30 days of each invoice.');
    expect(c.content).to.contain('Hosting\nUSD 10,000.00\nSupport\nUSD 2,500.00');
    expect(c.content).to.contain('renews automatically');
    expect(c.content).not.to.contain('ends at the end of its term');
    expect(c.content).to.contain('governed by the laws of the State of New York.');
    expect(c.content).to.contain('will not exceed the fees paid in the 12 months');
    expect(c.content).not.to.match(/\{\{|\}\}/);
    expect(c.template).to.deep.equal({ id: template.id, version: 1, name: 'Master services agreement' });
    expect(c.clauses.map((x) => [x.type, x.position])).to.deep.equal([
      ['governing_law', 0],
      ['liability_cap', 0],
    ]);
    expect(c.approval).to.equal(null);

    const v1 = await api<{ number: number; template: unknown; docx_document_id: string; source: string }>(
      'GET',
      `/contracts/${c.id}/versions/1`,
      { token: member.token },
    );
    expect(v1.body.template).to.deep.equal({ id: template.id, version: 1, name: 'Master services agreement' });
    expect(v1.body.docx_document_id).to.equal(c.docx_document_id);
    expect(v1.body.source).to.equal('document');

    const pdf = await api<{ mime_type: string; contract_id: string }>('GET', `/documents/${c.document_id}`, { token: member.token });
    expect(pdf.body.mime_type).to.equal('application/pdf');
    expect(pdf.body.contract_id).to.equal(c.id);
    const docx = await api<{ mime_type: string }>('GET', `/documents/${c.docx_document_id}`, { token: member.token });
    expect(docx.body.mime_type).to.equal('application/vnd.openxmlformats-officedocument.wordprocessingml.document');

    // The PDF of record, read by an independent reader (poppler's pdftotext), says what the DOCX says.
    const stored = await Document.findById(c.document_id).lean();
    const text = execFileSync('pdftotext', ['-layout', stored!.storage_path, '-']).toString('utf8').replace(/\s+/g, ' ');
    expect(text).to.contain('between Northwind Traders Ltd of 12 Harbour Road, Boston and Acme Services Inc.');
    expect(text).to.contain('USD 12,500.00 per month');
    expect(text).to.match(/Hosting\s+USD 10,000.00/);
    if (process.env.TEMPLATE_PDF_OUT) writeFileSync(process.env.TEMPLATE_PDF_OUT, readFileSync(stored!.storage_path));

    const terms = await api<{ terms: Record<string, { value: string; normalized: unknown; origin?: string } | null> }>(
      'GET',
      `/contracts/${c.id}/terms`,
      { token: member.token },
    );
    expect(terms.status, terms.text).to.equal(200);
    expect(terms.body.terms.governing_law).to.include({ value: 'New York', origin: 'template' });
    expect(terms.body.terms.payment_terms).to.include({ normalized: 30, origin: 'template' });
    expect(terms.body.terms.effective_date).to.include({ normalized: '2026-03-01', origin: 'template' });
    expect(terms.body.terms.auto_renewal).to.include({ normalized: true, origin: 'template' });
    expect(terms.body.terms.parties!.normalized).to.deep.equal(['Northwind Traders Ltd', 'Acme Services Inc']);
  });

  it('a fallback that needs approval is recorded and starts the approval its policy names', async () => {
    const res = await api<Contract>('POST', '/contracts', {
      token: member.token,
      body: { template_id: template.id, counterparty: 'Contoso', variables: { ...VALUES, renews: false }, clauses: { liability_cap: 1 } },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.content).to.contain('will not exceed twice the fees');
    expect(res.body.content).to.contain('ends at the end of its term');
    expect(res.body.clauses.find((x) => x.type === 'liability_cap')!.position).to.equal(1);
    expect(res.body.approval?.status).to.equal('pending');
    const approval = await api<{ groups: Array<{ requirements: Array<{ policy_id: string; reasons: string[] }> }> }>(
      'GET',
      `/approvals/${res.body.approval!.id}`,
      { token: owner.token },
    );
    expect(approval.status, approval.text).to.equal(200);
    const reqs = approval.body.groups.flatMap((g) => g.requirements);
    expect(reqs.map((r) => r.policy_id)).to.deep.equal([policyId]);
    expect(reqs[0]!.reasons.join(' ')).to.contain('liability_cap clause uses fallback 1');
  });

  it('drafts from a plain-text template with the same tags', async () => {
    const res = await api<Template>('POST', '/templates', {
      token: owner.token,
      body: {
        name: 'Mutual NDA',
        contract_type: 'nda',
        variables: [{ name: 'other', type: 'party', label: 'Other party' }],
        text: '# Mutual NDA\nBetween us and {{other.name}}.\n{{clause.governing_law}}',
        clauses: ['governing_law'],
      },
    });
    expect(res.status, res.text).to.equal(201);
    await api('POST', `/templates/${res.body.id}/publish`, { token: owner.token, body: {} });
    const c = await api<Contract>('POST', '/contracts', {
      token: member.token,
      body: { template_id: res.body.id, counterparty: 'Fabrikam', variables: { other: { name: 'Fabrikam' }, law: 'Delaware' } },
    });
    expect(c.status, c.text).to.equal(201);
    expect(c.body.content).to.equal(
      'Mutual NDA\nBetween us and Fabrikam.\nThis Agreement is governed by the laws of the State of Delaware.',
    );
  });
});
