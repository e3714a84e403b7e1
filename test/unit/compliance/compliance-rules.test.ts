import { expect } from 'chai';
import { aiFindings, evaluateContract, rulesFor } from '../../../services/compliance/evaluate';
import { COMPLIANCE_RULES, JURISDICTIONS, compileRules, type RuleData } from '../../../services/compliance/rules';

const EU_PROCESSING =
  'The Supplier will process personal data of customers located in the European Union on behalf of the Customer to provide the hosted CRM service.';
const DPA = ' The parties have entered into the Data Processing Addendum in Schedule 2, which governs that processing.';
const ids = (text: string, j: readonly string[] = JURISDICTIONS) =>
  evaluateContract(text, j)
    .map((f) => f.rule_id)
    .sort();

describe('compliance rules (pure)', () => {
  it('covers GDPR, CCPA, SOX, HIPAA and industry rules, each with sane fields', () => {
    const regulations = new Set(COMPLIANCE_RULES.map((r) => r.regulation_type));
    for (const r of ['GDPR', 'CCPA', 'SOX', 'HIPAA', 'Industry Specific']) expect(regulations).to.include(r);
    expect(JURISDICTIONS).to.include.members(['EU', 'US-CA', 'US', 'GLOBAL']);
    for (const r of COMPLIANCE_RULES) {
      expect(r.due_in_days, r.id).to.be.within(1, 365);
      expect(r.appliesWhen.length, r.id).to.be.greaterThan(0);
    }
  });

  it('rejects a malformed rule set at load: bad pattern, bad priority, duplicate id', () => {
    const base: RuleData = { ...COMPLIANCE_RULES[0]!, id: 'x-rule' };
    expect(() => compileRules([{ ...base, applies_when: ['(unclosed'] }])).to.throw(/regular expression/);
    expect(() => compileRules([{ ...base, priority: 'urgent' }])).to.throw();
    expect(() => compileRules([base, base])).to.throw(/used twice/);
  });

  it('EU personal data without data-processing terms breaks the GDPR processing rule', () => {
    const findings = evaluateContract(EU_PROCESSING, ['EU']);
    const processing = findings.find((f) => f.rule_id === 'gdpr-processing-terms');
    expect(processing).to.include({ regulation_type: 'GDPR', jurisdiction: 'EU', priority: 'high', due_in_days: 14 });
    expect(processing!.description).to.contain('personal data of customers');
  });

  it('data-processing terms satisfy the processing rule; breach notice and SCCs satisfy the rest', () => {
    expect(ids(EU_PROCESSING + DPA, ['EU'])).to.not.include('gdpr-processing-terms');
    const full = `${EU_PROCESSING}${DPA} Personal data may be transferred to the United States under the Standard Contractual Clauses. The Supplier shall notify the Customer of any personal data breach without undue delay.`;
    expect(ids(full, ['EU'])).to.deep.equal([]);
    expect(ids(`${EU_PROCESSING}${DPA} Personal data may be transferred to the United States.`, ['EU'])).to.deep.equal([
      'gdpr-breach-notification',
      'gdpr-international-transfers',
    ]);
  });

  it('runs only the named jurisdictions plus GLOBAL rules', () => {
    expect(ids(EU_PROCESSING, ['US-CA'])).to.deep.equal([]);
    expect(rulesFor(['US']).every((r) => r.jurisdiction === 'US' || r.jurisdiction === 'GLOBAL')).to.equal(true);
    expect(ids('Vendor stores cardholder data for the Customer.', ['EU'])).to.deep.equal(['pci-dss-cardholder-data']);
    expect(ids('Vendor stores cardholder data and complies with PCI DSS.', ['EU'])).to.deep.equal([]);
  });

  it('CCPA, SOX and HIPAA rules fire on their facts and are satisfied by their terms', () => {
    const ca = 'Vendor may share personal information of California consumers with its partners.';
    expect(ids(ca, ['US-CA'])).to.deep.equal(['ccpa-opt-out', 'ccpa-service-provider-terms']);
    expect(
      ids(
        `${ca} Consumers may opt-out of any sale or sharing. As a service provider, Vendor shall not retain, use or disclose personal information for any purpose other than the business purpose.`,
        ['US-CA'],
      ),
    ).to.deep.equal([]);
    const fin = 'Vendor maintains the general ledger and prepares financial statements for the Company.';
    expect(ids(fin, ['US'])).to.deep.equal(['sox-audit-rights', 'sox-record-retention']);
    expect(
      ids(`${fin} The Company has the right to audit these records. Vendor shall retain all records for seven years.`, ['US']),
    ).to.deep.equal([]);
    expect(ids('The clinic shares patient records with the Vendor.', ['US'])).to.deep.equal(['hipaa-business-associate']);
    expect(ids('The clinic shares patient records with the Vendor under the Business Associate Agreement.', ['US'])).to.deep.equal([]);
  });

  it('a contract with nothing regulated has no findings', () => {
    expect(ids('The Consultant will paint the office walls in blue within two weeks.')).to.deep.equal([]);
  });

  it('AI flags add findings only for in-scope regulations the rules did not cover', () => {
    const flag = 'HIPAA: health information is mentioned without safeguards for it';
    // The rule applied (patient records): the rule decides, the flag adds nothing.
    expect(aiFindings('patient records are shared', [flag], ['US'])).to.deep.equal([]);
    // The rule did not apply: the flag fills the gap, deterministically.
    const [f] = aiFindings('clinical notes are shared', [flag], ['US']);
    expect(f).to.include({
      regulation_type: 'HIPAA',
      jurisdiction: 'US',
      priority: 'medium',
      rule_id: 'ai-hipaa-health-information-is-mentioned-without-safeguards-for',
    });
    expect(aiFindings('clinical notes are shared', [flag], ['EU'])).to.deep.equal([]);
    expect(aiFindings('x', ['Subcontracting is allowed without confidentiality obligations flowing down'], JURISDICTIONS)).to.deep.equal(
      [],
    );
  });
});
