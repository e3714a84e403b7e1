import { expect } from 'chai';
import type { VariableDef } from '../../../services/clause-library/variables';
import { bulkSendColumns, readBulkSendRow, signerColumnsProblem } from '../../../services/templates/bulk-send-rows';

const DEFS = [
  { name: 'client', type: 'party', label: 'Client', required: true },
  { name: 'fee', type: 'money', label: 'Fee', required: true },
  { name: 'days', type: 'number', label: 'Days', default: 30 },
  { name: 'renews', type: 'yes_no', label: 'Renews' },
  { name: 'items', type: 'rows', label: 'Items', columns: [] },
] as unknown as VariableDef[];

describe('bulk-send rows', () => {
  it('names party and money fields as columns, requires what has no default, and leaves rows variables out', () => {
    const { known, required } = bulkSendColumns(DEFS);
    expect(known).to.include.members(['client.name', 'client.address', 'fee.amount', 'fee.currency', 'days', 'renews', 'signer_20_email']);
    expect(known).not.to.include('items');
    expect(required).to.deep.equal(['counterparty', 'signer_1_name', 'signer_1_email', 'client.name', 'fee.amount']);
  });

  it('refuses a signer column without its pair', () => {
    expect(signerColumnsProblem(['signer_1_name', 'signer_1_email', 'signer_2_email'])).to.equal(
      'the header has signer_2_email but not signer_2_name',
    );
    expect(signerColumnsProblem(['signer_1_name', 'signer_1_email'])).to.equal(null);
  });

  it('reads cells as variables, contract fields and signers in order', () => {
    const row = readBulkSendRow(DEFS, {
      counterparty: 'Acme',
      'client.name': 'Acme Ltd',
      'fee.amount': '1200.50',
      'fee.currency': 'EUR',
      renews: 'Yes',
      signer_2_name: 'Bo',
      signer_2_email: 'bo@example.test',
      signer_1_name: 'Al',
      signer_1_email: 'al@example.test',
    });
    expect(row).to.deep.equal({
      contract: { counterparty: 'Acme' },
      variables: { client: { name: 'Acme Ltd' }, fee: { amount: 1200.5, currency: 'EUR' }, renews: true },
      signers: [
        { name: 'Al', email: 'al@example.test' },
        { name: 'Bo', email: 'bo@example.test' },
      ],
    });
  });

  it('gives the first problem of a row', () => {
    expect(readBulkSendRow(DEFS, { 'fee.amount': 'lots', signer_1_name: 'A', signer_1_email: 'a@x.test' })).to.deep.equal({
      error: 'fee.amount: must be a number',
    });
    expect(readBulkSendRow(DEFS, { renews: 'maybe' })).to.deep.equal({ error: 'renews: must be yes or no' });
    expect(readBulkSendRow(DEFS, { signer_1_name: 'A' })).to.deep.equal({ error: 'signer_1: needs both a name and an email' });
    expect(readBulkSendRow(DEFS, { counterparty: 'A' })).to.deep.equal({ error: 'signer_1_name, signer_1_email: the row names no signer' });
  });
});
