/** A vendor's risk without a generative model (the local AI provider answers null): signals in its notes, its contracts' clauses. */
import type { VendorAssessment, VendorFacts } from '../../platform/ai/port';
import { riskLevel } from '../clauses/risk-level';
import { analyzeByClauses } from '../clauses/clause-rules';

const DATA_HEAVY = /\b(software|saas|cloud|hosting|data|it|payroll|hr|analytics|marketing|crm|payments?|health)\b/i;
const ADVERSE = /\b(breach|incident|late|delay(ed|s)?|bankrupt\w*|insolven\w*|lawsuit|litigation|default(ed)?|complaints?|outage)\b/gi;
const ASSURANCE = /\b(iso ?27001|soc ?2|pci[- ]dss|certified|audited)\b/i;

export function assessVendorByRules(v: VendorFacts): VendorAssessment {
  let score = 10;
  const recommendations: string[] = [];
  const notes = v.notes ?? '';
  const adverse = [...new Set((notes.match(ADVERSE) ?? []).map((w) => w.toLowerCase()))];
  const assured = ASSURANCE.test(notes);
  const dataHeavy = DATA_HEAVY.test(`${v.category ?? ''} ${notes}`);

  let financial: string;
  if (adverse.length) {
    score += Math.min(30, 10 * adverse.length);
    financial = `Notes record adverse signals (${adverse.join(', ')}); stability is uncertain.`;
    recommendations.push('Request recent financial statements and references before renewing or expanding the relationship.');
  } else if (!v.website) {
    score += 10;
    financial = 'No website or public footprint on record; stability cannot be confirmed.';
    recommendations.push("Record the vendor's website and registration details and verify them.");
  } else {
    financial = 'No adverse signals on record.';
  }

  let dataHandling: string;
  if (dataHeavy && !assured) {
    score += 15;
    dataHandling = 'The vendor likely handles organizational or personal data and no security certification is on record.';
    recommendations.push('Obtain a SOC 2 Type II report or ISO 27001 certificate and sign a data processing agreement.');
  } else if (assured) {
    score = Math.max(0, score - 5);
    dataHandling = 'A security certification or audit is on record.';
  } else {
    dataHandling = "The vendor's category suggests limited access to sensitive data.";
  }

  let coverage: string;
  if (!v.contracts.length) {
    score += 25;
    coverage = 'No contract with this vendor is on record.';
    recommendations.push('Put a written agreement in place, starting with an NDA.');
  } else {
    const analyses = v.contracts.map((c) => analyzeByClauses(c));
    const mean = Math.round(analyses.reduce((s, a) => s + a.risk_score, 0) / analyses.length);
    score += Math.round(mean * 0.4);
    const hasNda = v.contracts.some((c) => c.type === 'nda');
    const active = v.contracts.filter((c) => c.status === 'active').length;
    coverage = `${v.contracts.length} contract(s) on record (${active} active), mean contract risk ${mean}/100${hasNda ? ', NDA in place' : ', no NDA'}.`;
    if (!hasNda && dataHeavy) {
      score += 5;
      recommendations.push('Sign an NDA to cover information shared with the vendor.');
    }
    const gaps = [...new Set(analyses.flatMap((a) => a.analysis.missing_clauses))];
    if (gaps.length) recommendations.push(`Amend the contracts to add: ${gaps.join(', ')}.`);
  }

  const risk_score = Math.max(0, Math.min(100, score));
  if (!recommendations.length) recommendations.push('Review the vendor again at the next renewal.');
  return {
    risk_score,
    risk_level: riskLevel(risk_score),
    assessment: { financial_stability: financial, data_handling: dataHandling, contract_coverage: coverage, recommendations },
  };
}
