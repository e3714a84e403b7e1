import { expect } from 'chai';
import { api } from '../../support/http';
import { withSecondApi } from '../../support/env';
import { signUp, type TestUser } from '../../support/auth';
import { makePdf, upload } from '../../support/documents';
import { createTemporalClient } from '../../../platform/temporal/client';
import { ComplianceScan } from '../../../models/compliance-scan';

/**
 * A record whose workflow cannot start is not kept: the caller gets 503 with what it means, and
 * nothing pending is left behind that no workflow would ever finish.
 */
describe('a workflow that cannot start', function () {
  this.timeout(120000);
  let owner: TestUser;
  let contractId: string;
  // Nothing listens on port 9 (discard): every start fails within the start deadline.
  const { client, connection } = createTemporalClient({ TEMPORAL_ADDRESS: '127.0.0.1:9', TEMPORAL_NAMESPACE: 'default' });
  const down = { temporal: client, temporalConnection: connection };

  before(async () => {
    owner = await signUp();
    const c = await api<{ id: string }>('POST', '/contracts', {
      token: owner.token,
      body: { title: 'Supply agreement', type: 'service_agreement', counterparty: 'Acme', content: 'The supplier delivers.' },
    });
    contractId = c.body.id;
  });

  const total = async (path: string) => (await api<{ total: number }>('GET', path, { token: owner.token })).body.total;

  it('answers 503 and keeps no upload, signature request or compliance scan', async () => {
    await withSecondApi(
      {},
      async (base) => {
        const pdf = await makePdf([['Supply agreement', 'The supplier delivers.']]);
        const uploaded = await upload(owner.token, { name: 'supply.pdf', bytes: pdf, type: 'application/pdf' }, 'contract', { base });
        expect(uploaded.status).to.equal(503);
        expect(uploaded.body.detail).to.equal('The workflow engine is unavailable; the upload was not kept, try again shortly');

        const sent = await api('POST', '/signatures', {
          base,
          token: owner.token,
          body: { contract_id: contractId, signers: [{ name: 'Ann Signer', email: 'ann@example.com' }] },
        });
        expect(sent.status, sent.text).to.equal(503);
        expect(sent.body.detail).to.equal('The workflow engine is unavailable; nothing was sent, try again shortly');

        const scan = await api('POST', '/compliance/scan', { base, token: owner.token, body: { jurisdictions: ['EU'] } });
        expect(scan.status, scan.text).to.equal(503);
        expect(scan.body.detail).to.equal('The workflow engine is unavailable; try again shortly');
      },
      down,
    );
    expect(await total('/documents')).to.equal(0);
    expect(await total('/signatures')).to.equal(0);
    expect(await ComplianceScan.countDocuments({ organization_id: owner.organizationId })).to.equal(0);
    // The engine is back (the shared API): the same requests are kept.
    expect((await api('POST', '/compliance/scan', { token: owner.token, body: { jurisdictions: ['EU'] } })).status).to.equal(202);
    expect(await ComplianceScan.countDocuments({ organization_id: owner.organizationId })).to.equal(1);
  });
});
