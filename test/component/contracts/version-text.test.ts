/**
 * A PDF version's extracted text is kept only up to VERSION_TEXT_MAX_CHARS (issue 38): past
 * it the text would outgrow the store's document limit, and the redline would fail after
 * every extraction. The answer says when a version's text was cut.
 */
import { expect } from 'chai';
import { api } from '../../support/http';
import { withSecondApi } from '../../support/env';
import { signUp, type TestUser } from '../../support/auth';
import { makePdf, upload } from '../../support/documents';

interface VersionRef {
  number: number;
  text_truncated: boolean;
}
interface Diff {
  from: VersionRef;
  to: VersionRef;
  paragraphs: Array<{ op: string; text?: string; parts?: Array<{ op: string; text: string }> }>;
}
interface Version {
  number: number;
  source: string;
  text_truncated: boolean | null;
}

describe('version text', function () {
  this.timeout(120_000);
  let owner: TestUser;
  before(async () => {
    owner = await signUp();
  });

  it('keeps a PDF version’s text up to the configured cap, and says the version was cut', async () => {
    const created = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Long MSA', type: 'service_agreement', counterparty: 'Northwind' },
    });
    const id = created.body.id;
    const lines = Array.from({ length: 30 }, (_, i) => `Clause ${i + 1}: the supplier delivers the goods on time.`);
    for (const pdf of [await makePdf([['Fees are due within thirty days.']]), await makePdf([lines])]) {
      const up = await upload(owner.token, { name: 'msa.pdf', bytes: pdf, type: 'application/pdf' }, 'contract');
      expect(up.status, JSON.stringify(up.body)).to.equal(201);
      const put = await api('PUT', `/contracts/${id}`, { token: owner.token, body: { document_id: up.body.id } });
      expect(put.status, put.text).to.equal(200);
    }
    const MAX = 200;
    await withSecondApi({ VERSION_TEXT_MAX_CHARS: MAX }, async (base) => {
      const listed = await api<{ versions: Version[] }>('GET', `/contracts/${id}/versions`, { token: owner.token, base });
      const [short, long] = listed.body.versions
        .filter((v) => v.source === 'document')
        .map((v) => v.number)
        .sort((x, y) => x - y);
      const res = await api<Diff>('GET', `/contracts/${id}/versions/${short}/diff/${long}`, { token: owner.token, base });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.from).to.include({ number: short, text_truncated: false });
      expect(res.body.to).to.include({ number: long, text_truncated: true });
      // Version b's side of the redline: its first MAX characters, nothing past them.
      const b = res.body.paragraphs
        .flatMap((p) => (p.parts ? p.parts.filter((x) => x.op !== 'delete').map((x) => x.text) : p.op === 'delete' ? [] : [p.text ?? '']))
        .join('');
      expect(b).to.include('Clause 1:');
      expect(b.replace(/\s+/g, '').length).to.be.at.most(MAX);
      expect(b).not.to.include('Clause 30');
      // The versions say so too, listed and one by one.
      const one = await api<Version>('GET', `/contracts/${id}/versions/${long}`, { token: owner.token, base });
      expect(one.body.text_truncated).to.equal(true);
      const again = await api<{ versions: Version[] }>('GET', `/contracts/${id}/versions`, { token: owner.token, base });
      expect(again.body.versions.find((v) => v.number === short)!.text_truncated).to.equal(false);
      const html = await api('GET', `/contracts/${id}/versions/${short}/diff/${long}`, {
        token: owner.token,
        base,
        headers: { accept: 'text/html' },
      });
      expect(html.text).to.include(`The text of version ${long} is long and was cut`);
    });
  });
});
