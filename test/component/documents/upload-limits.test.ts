import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { api } from '../../support/http';
import { testEnv, withSecondApi } from '../../support/env';
import { addMember, signUp, type TestUser } from '../../support/auth';
import { makeDocx, settled, upload } from '../../support/documents';
import { docxWithBody, oneLetterParagraphs, pdfWithContent } from '../../support/bombs';

const MB = 1024 * 1024;

/** GET /health every 200 ms until stopped; the statuses it saw. */
function watchHealth() {
  const statuses: number[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      statuses.push((await fetch(`${testEnv().hostUrl}/health`).catch(() => ({ status: 0 }))).status);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return async () => {
    on = false;
    await loop;
    return statuses;
  };
}

/** The ingestion's extract activity: how many times it was tried, and whether its failure was final. */
async function extractTries(documentId: string): Promise<{ tries: number; nonRetryable: boolean }> {
  const history = await testEnv().services.temporal.workflow.getHandle(`ingest-${documentId}`).fetchHistory();
  const events = history.events ?? [];
  const failed = events.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes;
  const started = events.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes;
  return { tries: started?.attempt ?? 0, nonRetryable: failed?.failure?.applicationFailureInfo?.nonRetryable === true };
}

/** A DOCX of ~1 MB of two- or three-letter paragraphs with random letters: compresses only ~12 to 1, so it passes the ratio rule, yet mammoth needs far more than 64 MB of heap for it. */
function denseDocx(): Promise<Buffer> {
  const r = randomBytes(1 << 16);
  const paragraphs: string[] = [];
  for (let i = 0, size = 0; size < MB; i++) {
    const p = `<w:p><w:r><w:t>${String.fromCharCode(97 + (r[i % r.length]! % 26))}${r[(i * 7) % r.length]!.toString(36)}</w:t></w:r></w:p>`;
    paragraphs.push(p);
    size += p.length;
  }
  const xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs.join('')}</w:body></w:document>`;
  return docxWithBody(Buffer.from(xml));
}

describe('upload limits', function () {
  this.timeout(120000);
  let owner: TestUser;
  let bomb: Buffer;

  before(async () => {
    owner = await signUp();
    // ~190 KB that inflates to 60 MB of one-letter paragraphs (about 330 to 1): mammoth,
    // given it, grows its heap for over a minute until it dies.
    bomb = await docxWithBody(oneLetterParagraphs(60 * MB));
    expect(bomb.length).to.be.below(250 * 1024);
  });

  it('fails a decompression-bomb DOCX with a reason, at once and without retrying; the API answers throughout and the next upload is ingested', async () => {
    const stop = watchHealth();
    const res = await upload(owner.token, { name: 'bomb.docx', bytes: bomb }, 'contract');
    expect(res.status).to.equal(201);
    const started = Date.now();
    const doc = await settled(owner.token, res.body.id);
    const seconds = (Date.now() - started) / 1000;
    expect(doc.status).to.equal('failed');
    expect(doc.error).to.equal('the file expands to more than 50 MB of content');
    expect(doc.chunk_count).to.equal(0);
    expect(seconds).to.be.below(30);
    expect(await extractTries(res.body.id)).to.deep.equal({ tries: 1, nonRetryable: true });

    const normal = await upload(
      owner.token,
      {
        name: 'after.docx',
        bytes: await makeDocx([{ heading: 'Travel', paragraphs: ['Economy class for flights under six hours.'] }]),
      },
      'policy',
    );
    expect(normal.status).to.equal(201);
    const after = await settled(owner.token, normal.body.id);
    const statuses = await stop();
    expect(after.status).to.equal('ready');
    expect(after.chunk_count).to.be.above(0);
    expect(statuses.length).to.be.above(0);
    expect(
      statuses.every((s) => s === 200),
      `health answered ${statuses.join(',')}`,
    ).to.equal(true);
  });

  it('fails a DOCX whose zip headers understate what it inflates to', async () => {
    // Declares 4 KB for a document.xml that inflates to 60 MB.
    const liar = await docxWithBody(oneLetterParagraphs(60 * MB), 4096);
    const res = await upload(owner.token, { name: 'liar.docx', bytes: liar }, 'contract');
    expect(res.status).to.equal(201);
    const doc = await settled(owner.token, res.body.id);
    expect(doc.status).to.equal('failed');
    expect(doc.error).to.equal("the file's part word/document.xml expands beyond the size its header declares");
  });

  it('fails a DOCX whose document part is compressed like a bomb, below the size limit', async () => {
    const res = await upload(owner.token, { name: 'small-bomb.docx', bytes: await docxWithBody(oneLetterParagraphs(5 * MB)) }, 'contract');
    const doc = await settled(owner.token, res.body.id);
    expect(doc.status).to.equal('failed');
    expect(doc.error).to.match(
      /^the file looks like a decompression bomb: its part word\/document\.xml expands \d+ times, more than the 100 allowed$/,
    );
  });

  it('fails a PDF whose streams inflate past the limit', async () => {
    const content = Buffer.concat([Buffer.from('BT /F1 12 Tf 50 700 Td (Harbour) Tj ET\n'), Buffer.alloc(60 * MB, 0x20)]);
    const res = await upload(owner.token, { name: 'bomb.pdf', bytes: pdfWithContent(content) }, 'contract');
    expect(res.status).to.equal(201);
    const doc = await settled(owner.token, res.body.id);
    expect(doc.status).to.equal('failed');
    expect(doc.error).to.equal('the file expands to more than 50 MB of content');
  });

  describe('POST /documents/:id/analyze', () => {
    let ready: string;
    let bombId: string;

    before(async () => {
      const small = await upload(
        owner.token,
        { name: 'travel.docx', bytes: await makeDocx([{ heading: 'Travel', paragraphs: ['Economy class for flights under six hours.'] }]) },
        'policy',
      );
      ready = (await settled(owner.token, small.body.id)).id;
      bombId = (await settled(owner.token, (await upload(owner.token, { name: 'bomb.docx', bytes: bomb }, 'contract')).body.id)).id;
    });

    it('needs the permission of an upload: a viewer gets 403, a member 200', async () => {
      const viewer = await addMember(owner, 'viewer');
      const refused = await api('POST', `/documents/${ready}/analyze`, { token: viewer.token });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.have.property('detail');
      const member = await addMember(owner, 'member');
      const done = await api<{ page_count: number }>('POST', `/documents/${ready}/analyze`, { token: member.token });
      expect(done.status).to.equal(200);
      expect(done.body.page_count).to.equal(1);
    });

    it('answers 422 with the reason for a bomb, and the API stays up', async () => {
      const res = await api('POST', `/documents/${bombId}/analyze`, { token: owner.token });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.equal({ detail: 'document: the file expands to more than 50 MB of content' });
      expect((await fetch(`${testEnv().hostUrl}/health`)).status).to.equal(200);
      expect((await api('POST', `/documents/${ready}/analyze`, { token: owner.token })).status).to.equal(200);
    });

    it('stops a parse past its memory ceiling or its time limit with 422, in the child only', async () => {
      const dense = await upload(owner.token, { name: 'dense.docx', bytes: await denseDocx() }, 'other');
      await withSecondApi({ EXTRACT_MEMORY_MB: 64 }, async (base) => {
        const res = await api('POST', `/documents/${dense.body.id}/analyze`, { token: owner.token, base });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.equal({ detail: 'document: reading the file needs more than 64 MB of memory' });
      });
      // Its ingestion (within 512 MB) is not what this test is about.
      expect((await api('DELETE', `/documents/${dense.body.id}`, { token: owner.token })).status).to.equal(204);
      await withSecondApi({ EXTRACT_TIMEOUT_MS: 50 }, async (base) => {
        const res = await api('POST', `/documents/${ready}/analyze`, { token: owner.token, base });
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.equal({ detail: 'document: reading the file took longer than 0.05 seconds' });
      });
      expect((await fetch(`${testEnv().hostUrl}/health`)).status).to.equal(200);
    });
  });
});
