/**
 * The compliance rule set, as data: one entry per issue a scan looks for. To add a rule,
 * append an entry; the schema below checks the whole set when the module loads, so a
 * malformed rule (bad pattern, unknown priority, duplicate id) fails at start-up, not mid-scan.
 *
 * - `applies_when`: every pattern must match the contract text for the rule to be relevant
 *   (e.g. "personal data" AND an EU connection).
 * - `satisfied_by`: any one pattern present means the contract already covers the issue.
 * Patterns are case-insensitive regular expressions.
 * - `jurisdiction` `GLOBAL` marks industry rules that apply wherever the contract is; a scan
 *   runs them whatever jurisdictions it names.
 */
import { z } from 'zod';
import { TASK_PRIORITIES } from '../../models/compliance-task';

const pattern = z
  .string()
  .min(1)
  .refine((p) => {
    try {
      new RegExp(p, 'i');
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid regular expression');

export const RuleSchema = z.object({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be a kebab-case id'),
  regulation_type: z.string().min(1),
  jurisdiction: z.string().regex(/^[A-Z]{2,}(-[A-Z]{2})?$/, 'must be a region code like EU, US, US-CA or GLOBAL'),
  title: z.string().min(1),
  description: z.string().min(1),
  priority: z.enum(TASK_PRIORITIES),
  due_in_days: z.number().int().min(1).max(365),
  applies_when: z.array(pattern).min(1),
  satisfied_by: z.array(pattern).min(1),
});
export type RuleData = z.infer<typeof RuleSchema>;

export const GLOBAL_JURISDICTION = 'GLOBAL';

const EU = String.raw`\b(EU|E\.U\.|European Union|EEA|European Economic Area|Member States?|GDPR|Europe(an)?)\b`;
const PERSONAL_DATA = String.raw`\bpersonal (data|information)\b|\bdata subjects?\b|\bcustomer data\b|\bemployee data\b`;
const CALIFORNIA = String.raw`\b(California|CCPA|CPRA|Cal\. Civ\. Code)\b`;
const FINANCIAL = String.raw`\b(financial (records?|statements?|reporting|data)|general ledger|internal controls? over financial reporting|accounting records?)\b`;

const RULE_DATA: RuleData[] = [
  {
    id: 'gdpr-processing-terms',
    regulation_type: 'GDPR',
    jurisdiction: 'EU',
    title: 'GDPR: personal data processed without data-processing terms',
    description:
      'The contract involves personal data of people in the EU but has no data-processing terms (Art. 28 GDPR: subject matter, duration, purpose, processor obligations). Add a data processing agreement or addendum.',
    priority: 'high',
    due_in_days: 14,
    applies_when: [PERSONAL_DATA, EU],
    satisfied_by: [
      String.raw`\bdata processing (agreement|addendum|terms)\b`,
      String.raw`\bDPA\b`,
      String.raw`\bArticle 28\b|\bArt\.? 28\b`,
      String.raw`\bprocess\w* (the )?personal data only on (the )?(documented )?instructions\b`,
    ],
  },
  {
    id: 'gdpr-international-transfers',
    regulation_type: 'GDPR',
    jurisdiction: 'EU',
    title: 'GDPR: international transfer without safeguards',
    description:
      'Personal data may leave the EU/EEA but the contract names no transfer safeguard (Standard Contractual Clauses, an adequacy decision or binding corporate rules; Chapter V GDPR).',
    priority: 'high',
    due_in_days: 30,
    applies_when: [
      PERSONAL_DATA,
      EU,
      String.raw`\b(transfer\w*|stored?|host\w*|process\w*|access\w*)\b[^.]{0,80}\b(outside|third countr(y|ies)|United States|USA|India|overseas|international\w*)\b`,
    ],
    satisfied_by: [
      String.raw`\bstandard contractual clauses\b|\bSCCs?\b`,
      String.raw`\badequacy decision\b`,
      String.raw`\bbinding corporate rules\b`,
      String.raw`\bData Privacy Framework\b`,
    ],
  },
  {
    id: 'gdpr-breach-notification',
    regulation_type: 'GDPR',
    jurisdiction: 'EU',
    title: 'GDPR: no personal data breach notification',
    description:
      'The contract involves personal data of people in the EU but does not oblige the other party to notify a personal data breach without undue delay (Art. 33 GDPR, 72 hours to the authority).',
    priority: 'medium',
    due_in_days: 30,
    applies_when: [PERSONAL_DATA, EU],
    satisfied_by: [
      String.raw`\b(notify|notification|inform)\w*\b[^.]{0,80}\b(personal data |security |data )?breach\w*\b`,
      String.raw`\bbreach\w*\b[^.]{0,80}\b(notify|notification|without undue delay|72 hours)\b`,
    ],
  },
  {
    id: 'ccpa-opt-out',
    regulation_type: 'CCPA',
    jurisdiction: 'US-CA',
    title: 'CCPA/CPRA: sale or sharing of personal information without opt-out terms',
    description:
      'Personal information of California consumers may be sold or shared, but the contract has no opt-out (Do Not Sell or Share) terms or restriction on selling and sharing.',
    priority: 'high',
    due_in_days: 14,
    applies_when: [PERSONAL_DATA, CALIFORNIA, String.raw`\b(sell|sale|sold|shar(e|es|ed|ing)|disclos\w*)\b`],
    satisfied_by: [
      String.raw`\bopt[- ]out\b`,
      String.raw`\bdo not sell\b`,
      String.raw`\b(shall|will|must) not (sell|share)\b[^.]{0,40}\bpersonal information\b`,
    ],
  },
  {
    id: 'ccpa-service-provider-terms',
    regulation_type: 'CCPA',
    jurisdiction: 'US-CA',
    title: 'CCPA/CPRA: missing service-provider terms',
    description:
      'The counterparty handles personal information of California consumers but the contract lacks service-provider (or contractor) terms limiting its use to the business purpose (Cal. Civ. Code 1798.140(ag)).',
    priority: 'medium',
    due_in_days: 30,
    applies_when: [PERSONAL_DATA, CALIFORNIA],
    satisfied_by: [
      String.raw`\bservice provider\b[^.]{0,120}\b(business purpose|1798\.140|shall not retain, use or disclose)\b`,
      String.raw`\bshall not retain, use,? or disclose\b`,
      String.raw`\bCCPA (service provider )?(addendum|terms)\b`,
    ],
  },
  {
    id: 'sox-audit-rights',
    regulation_type: 'SOX',
    jurisdiction: 'US',
    title: 'SOX: financial records without audit rights',
    description:
      'The counterparty keeps or affects financial records or reporting, but the contract grants no right to audit them (needed to test internal controls over financial reporting, SOX 404).',
    priority: 'high',
    due_in_days: 30,
    applies_when: [FINANCIAL],
    satisfied_by: [
      String.raw`\b(right to|may|shall permit\w*)\b[^.]{0,40}\baudit\w*\b`,
      String.raw`\baudit rights?\b`,
      String.raw`\bSOC 1\b|\bSSAE ?18\b`,
    ],
  },
  {
    id: 'sox-record-retention',
    regulation_type: 'SOX',
    jurisdiction: 'US',
    title: 'SOX: missing record retention',
    description:
      'Financial records are in scope but the contract sets no retention period for them (SOX 802 requires audit-relevant records to be kept for seven years).',
    priority: 'medium',
    due_in_days: 45,
    applies_when: [FINANCIAL],
    satisfied_by: [
      String.raw`\b(retain|retention|preserve|keep)\w*\b[^.]{0,80}\b(records?|documents?)\b[^.]{0,80}\b(years?|period)\b`,
      String.raw`\brecord[- ]retention\b`,
    ],
  },
  {
    id: 'hipaa-business-associate',
    regulation_type: 'HIPAA',
    jurisdiction: 'US',
    title: 'HIPAA: protected health information without a business associate agreement',
    description:
      'The counterparty may create, receive or store protected health information, but the contract has no business associate agreement (45 CFR 164.504(e)).',
    priority: 'high',
    due_in_days: 14,
    applies_when: [String.raw`\bprotected health information\b|\bPHI\b|\b(patient|health|medical) (data|information|records)\b`],
    satisfied_by: [String.raw`\bbusiness associate (agreement|addendum|contract)\b`, String.raw`\bBAA\b`],
  },
  {
    id: 'pci-dss-cardholder-data',
    regulation_type: 'Industry Specific',
    jurisdiction: GLOBAL_JURISDICTION,
    title: 'PCI DSS: cardholder data without PCI DSS obligations',
    description:
      'The counterparty stores, processes or transmits payment card data, but the contract does not require PCI DSS compliance (and an annual attestation of compliance).',
    priority: 'high',
    due_in_days: 30,
    applies_when: [String.raw`\b(cardholder data|payment card|credit card|debit card|card numbers?)\b`],
    satisfied_by: [String.raw`\bPCI[- ]?DSS\b`, String.raw`\bPayment Card Industry Data Security Standard\b`],
  },
  {
    id: 'glba-safeguards',
    regulation_type: 'Industry Specific',
    jurisdiction: 'US',
    title: 'GLBA: customer financial information without safeguards',
    description:
      'Nonpublic personal financial information of customers is shared with the counterparty, but the contract does not require it to maintain safeguards (GLBA Safeguards Rule, 16 CFR 314.4(f)).',
    priority: 'medium',
    due_in_days: 45,
    applies_when: [
      String.raw`\b(nonpublic personal information|NPI|customer financial (information|data)|bank account (data|information|numbers?))\b`,
    ],
    satisfied_by: [String.raw`\bGramm[- ]Leach[- ]Bliley\b|\bGLBA\b`, String.raw`\b(information security program|safeguards? rule)\b`],
  },
];

export interface CompiledRule extends RuleData {
  appliesWhen: RegExp[];
  satisfiedBy: RegExp[];
}

/** Validates a rule set and compiles its patterns; throws on a malformed rule or a duplicate id. */
export function compileRules(data: unknown): CompiledRule[] {
  const rules = z.array(RuleSchema).parse(data);
  const ids = new Set<string>();
  for (const r of rules) {
    if (ids.has(r.id)) throw new Error(`compliance rule id ${r.id} is used twice`);
    ids.add(r.id);
  }
  return rules.map((r) => ({
    ...r,
    appliesWhen: r.applies_when.map((p) => new RegExp(p, 'i')),
    satisfiedBy: r.satisfied_by.map((p) => new RegExp(p, 'i')),
  }));
}

export const COMPLIANCE_RULES: readonly CompiledRule[] = compileRules(RULE_DATA);

/** Every jurisdiction a scan may name: those of the rules. */
export const JURISDICTIONS: readonly string[] = [...new Set(COMPLIANCE_RULES.map((r) => r.jurisdiction))];
