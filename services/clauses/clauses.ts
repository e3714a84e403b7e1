/**
 * The service's contract vocabulary: clause categories (after CUAD, the Contract
 * Understanding Atticus Dataset, plus confidentiality, indemnification, termination and
 * data protection, which CUAD leaves out), the patterns that find them, which ones each
 * contract type is expected to have, and the clause library drafts are built from.
 */
import type { ContractType } from '../../models/contract';

export type ClauseId =
  | 'governing_law'
  | 'expiration_date'
  | 'renewal_term'
  | 'termination_for_convenience'
  | 'termination'
  | 'cap_on_liability'
  | 'uncapped_liability'
  | 'indemnification'
  | 'confidentiality'
  | 'ip_ownership_assignment'
  | 'license_grant'
  | 'irrevocable_or_perpetual_license'
  | 'non_compete'
  | 'exclusivity'
  | 'no_solicit_of_employees'
  | 'audit_rights'
  | 'insurance'
  | 'anti_assignment'
  | 'change_of_control'
  | 'liquidated_damages'
  | 'most_favored_nation'
  | 'warranty_duration'
  | 'covenant_not_to_sue'
  | 'minimum_commitment'
  | 'data_protection';

export interface ClauseCategory {
  id: ClauseId;
  label: string;
  /** A sentence matching any pattern is that clause. */
  patterns: RegExp[];
  /** Points the clause adds to the risk score when present (a risky clause). */
  presentRisk?: { weight: number; risk: string; recommendation: string };
  /** Points the clause adds when the contract type expects it and it is absent. */
  missingWeight: number;
}

export const CLAUSE_CATEGORIES: readonly ClauseCategory[] = [
  {
    id: 'governing_law',
    label: 'Governing law',
    missingWeight: 10,
    patterns: [/\bgoverned by\b[^.]{0,120}\blaws?\b/i, /\bgoverning law\b/i, /\bconstrued in accordance with\b[^.]{0,80}\blaws?\b/i],
  },
  {
    id: 'expiration_date',
    label: 'Term and expiration',
    missingWeight: 6,
    patterns: [
      /\b(term|agreement)\b[^.]{0,80}\b(shall|will)\s+(continue|remain in (full )?(force|effect)|expire|end)\b/i,
      /\bexpir(es|ation)\b[^.]{0,60}\b(on|after|date)\b/i,
      /\bfor a (period|term) of\b/i,
    ],
  },
  {
    id: 'renewal_term',
    label: 'Auto-renewal',
    missingWeight: 0,
    patterns: [/\bautomatic(ally)?\s+renew/i, /\bauto-?renew/i, /\brenew(s|ed)? automatically\b/i],
    presentRisk: {
      weight: 8,
      risk: 'The agreement renews automatically and may lock the organization in beyond the intended term.',
      recommendation: 'Require written consent for renewal, or add a notice window (e.g. 60 days) to opt out and a calendar reminder.',
    },
  },
  {
    id: 'termination_for_convenience',
    label: 'Termination for convenience',
    missingWeight: 0,
    patterns: [/\bterminat\w*\b[^.]{0,80}\b(for convenience|without cause|for any reason|at any time)\b/i],
    presentRisk: {
      weight: 5,
      risk: 'A party may end the agreement without cause, which can cut off services or revenue at short notice.',
      recommendation: 'Make the right mutual, require at least 30 days notice and settle fees for work already done.',
    },
  },
  {
    id: 'termination',
    label: 'Termination',
    missingWeight: 8,
    patterns: [/\bterminat(e|ed|es|ion)\b[^.]{0,100}\b(notice|breach|cause|days|upon|immediately)\b/i, /\bmay terminate\b/i],
  },
  {
    id: 'uncapped_liability',
    label: 'Uncapped liability',
    missingWeight: 0,
    patterns: [
      /\bunlimited liability\b/i,
      /\bliab\w*\b[^.]{0,60}\b(shall be|is|are|will be) unlimited\b/i,
      /\buncapped\b/i,
      /\bwithout (any )?limit(ation)? (of|on|to) (its |their )?liability\b/i,
      /\blimitations? of liability\b[^.]{0,60}\bshall not apply\b/i,
    ],
    presentRisk: {
      weight: 20,
      risk: 'Liability is unlimited, so a single claim could exceed the value of the contract many times over.',
      recommendation:
        'Cap aggregate liability (e.g. at the fees paid in the prior 12 months) with narrow carve-outs for fraud and wilful misconduct.',
    },
  },
  {
    id: 'cap_on_liability',
    label: 'Cap on liability',
    missingWeight: 15,
    patterns: [
      /\bliab\w*\b[^.]{0,160}\b(shall not exceed|not to exceed|will not exceed|limited to|capped at)\b/i,
      /\bin no event shall\b[^.]{0,120}\bliab\w*\b[^.]{0,120}\bexceed\b/i,
      /\blimitation of liability\b/i,
    ],
  },
  {
    id: 'indemnification',
    label: 'Indemnification',
    missingWeight: 10,
    patterns: [/\bindemnif(y|ies|ied|ication)\b/i, /\bhold harmless\b/i],
  },
  {
    id: 'confidentiality',
    label: 'Confidentiality',
    missingWeight: 10,
    patterns: [
      /\bconfidential information\b/i,
      /\b(keep|hold|maintain)\b[^.]{0,60}\b(confidential|in confidence)\b/i,
      /\bconfidentiality\b/i,
      /\bnon-?disclosure\b/i,
    ],
  },
  {
    id: 'ip_ownership_assignment',
    label: 'IP ownership assignment',
    missingWeight: 8,
    patterns: [
      /\b(intellectual property|work product|deliverables|inventions)\b[^.]{0,120}\b(shall be|are|is|will be)\b[^.]{0,40}\b(owned by|property of|assigned to|vest in)\b/i,
      /\bhereby assigns?\b[^.]{0,120}\b(right|title|interest)\b/i,
      /\bwork made for hire\b/i,
    ],
  },
  {
    id: 'license_grant',
    label: 'License grant',
    missingWeight: 0,
    patterns: [/\bgrants?\b[^.]{0,60}\b(a |an )?(non-?exclusive|exclusive|limited|worldwide|royalty-free)?[^.]{0,40}\blicen[cs]e\b/i],
  },
  {
    id: 'irrevocable_or_perpetual_license',
    label: 'Irrevocable or perpetual license',
    missingWeight: 0,
    patterns: [/\b(irrevocable|perpetual)\b[^.]{0,60}\blicen[cs]e\b/i],
    presentRisk: {
      weight: 6,
      risk: 'A licence that can never be withdrawn survives the end of the relationship.',
      recommendation: 'Limit the licence to the term and the stated purpose, or make it revocable on breach.',
    },
  },
  {
    id: 'non_compete',
    label: 'Non-compete',
    missingWeight: 0,
    patterns: [/\bnon-?compet/i, /\bshall not\b[^.]{0,80}\b(compete|competing|competitive)\b/i],
    presentRisk: {
      weight: 10,
      risk: 'A restriction on competing limits future business and may be unenforceable in some jurisdictions (e.g. California).',
      recommendation: 'Narrow it by scope, territory and duration (12 months or less), or replace it with a non-solicitation clause.',
    },
  },
  {
    id: 'exclusivity',
    label: 'Exclusivity',
    missingWeight: 0,
    patterns: [
      /\bexclusive (provider|supplier|vendor|dealer|distributor|basis|relationship)\b/i,
      /\bshall not\b[^.]{0,80}\b(engage|procure|purchase)\b[^.]{0,60}\b(any other|third part)/i,
    ],
    presentRisk: {
      weight: 8,
      risk: 'Exclusivity prevents working with other suppliers or customers.',
      recommendation: 'Tie exclusivity to performance targets and a fixed period, with an exit if they are missed.',
    },
  },
  {
    id: 'no_solicit_of_employees',
    label: 'No-solicit of employees',
    missingWeight: 0,
    patterns: [/\b(solicit|hire|employ)\b[^.]{0,80}\b(employees|personnel|staff)\b/i],
  },
  {
    id: 'audit_rights',
    label: 'Audit rights',
    missingWeight: 0,
    patterns: [/\baudit\b[^.]{0,80}\b(books|records|accounts|compliance|premises)\b/i, /\bright to audit\b/i],
  },
  {
    id: 'insurance',
    label: 'Insurance',
    missingWeight: 6,
    patterns: [/\b(maintain|carry|obtain)\b[^.]{0,80}\binsurance\b/i, /\binsurance (coverage|policy|policies)\b/i],
  },
  {
    id: 'anti_assignment',
    label: 'Anti-assignment',
    missingWeight: 4,
    patterns: [/\b(may|shall) not\b[^.]{0,40}\bassign\b/i, /\bassign\w*\b[^.]{0,80}\bwithout the (prior )?(written )?consent\b/i],
  },
  {
    id: 'change_of_control',
    label: 'Change of control',
    missingWeight: 0,
    patterns: [/\bchange (of|in) control\b/i, /\bmerger\b[^.]{0,60}\bacquisition\b/i],
  },
  {
    id: 'liquidated_damages',
    label: 'Liquidated damages',
    missingWeight: 0,
    patterns: [/\bliquidated damages\b/i, /\bpenalty of\b/i],
    presentRisk: {
      weight: 8,
      risk: 'Fixed damages are owed on breach whatever the real loss.',
      recommendation: 'Check the amount is a genuine pre-estimate of loss and cap the total.',
    },
  },
  {
    id: 'most_favored_nation',
    label: 'Most favored nation',
    missingWeight: 0,
    patterns: [/\bmost favou?red (nation|customer)\b/i, /\bno less favou?rable than\b/i],
    presentRisk: {
      weight: 5,
      risk: 'Pricing is tied to the best terms given to anyone else, which constrains future deals.',
      recommendation: 'Limit the clause to comparable volumes and terms, and to a fixed period.',
    },
  },
  {
    id: 'warranty_duration',
    label: 'Warranty',
    missingWeight: 5,
    patterns: [/\bwarrants?\b[^.]{0,120}\b(perform|services|free from|conform|workmanlike)/i, /\bwarranty (period|of)\b/i],
  },
  {
    id: 'covenant_not_to_sue',
    label: 'Covenant not to sue',
    missingWeight: 0,
    patterns: [/\bcovenants? not to sue\b/i, /\bwaives?\b[^.]{0,60}\bright to (sue|bring (any )?(claim|action))\b/i],
    presentRisk: {
      weight: 6,
      risk: 'The organization gives up the right to bring claims.',
      recommendation: 'Remove the waiver or limit it to claims that are released for consideration.',
    },
  },
  {
    id: 'minimum_commitment',
    label: 'Minimum commitment',
    missingWeight: 0,
    patterns: [/\bminimum (purchase|order|commitment|volume|fee)\b/i],
  },
  {
    id: 'data_protection',
    label: 'Data protection',
    missingWeight: 0,
    patterns: [
      /\bdata protection\b/i,
      /\b(GDPR|CCPA|data processing (agreement|addendum))\b/i,
      /\bprocess\w*\b[^.]{0,40}\bpersonal data\b[^.]{0,80}\b(accordance|comply|applicable)\b/i,
    ],
  },
];

export const CATEGORY_BY_ID = new Map(CLAUSE_CATEGORIES.map((c) => [c.id, c]));

/** Clauses a well-formed contract of each type carries; a gap raises the risk score. */
export const EXPECTED_CLAUSES: Record<ContractType, readonly ClauseId[]> = {
  nda: ['confidentiality', 'governing_law', 'expiration_date', 'termination', 'anti_assignment'],
  service_agreement: [
    'governing_law',
    'cap_on_liability',
    'indemnification',
    'termination',
    'confidentiality',
    'ip_ownership_assignment',
    'insurance',
    'warranty_duration',
  ],
  consulting: ['governing_law', 'cap_on_liability', 'indemnification', 'termination', 'confidentiality', 'ip_ownership_assignment'],
  employment: ['governing_law', 'termination', 'confidentiality', 'ip_ownership_assignment'],
  lease: ['governing_law', 'expiration_date', 'termination', 'insurance', 'indemnification', 'cap_on_liability'],
};
/** Types outside the five (imports, older records) are held to the common core. */
export const DEFAULT_EXPECTED: readonly ClauseId[] = ['governing_law', 'termination', 'cap_on_liability', 'confidentiality'];

/** Regulation signals: text that mentions a regulated subject without the matching safeguard. */
export const COMPLIANCE_RULES: ReadonlyArray<{ when: RegExp; unless: ClauseId; flag: string; weight: number }> = [
  {
    when: /\bpersonal (data|information)\b|\bcustomer data\b|\bemployee data\b/i,
    unless: 'data_protection',
    flag: 'GDPR/CCPA: personal data is handled without a data protection or processing clause',
    weight: 8,
  },
  {
    when: /\b(health|medical) (data|information|records)\b|\bPHI\b/i,
    unless: 'data_protection',
    flag: 'HIPAA: health information is mentioned without safeguards for it',
    weight: 8,
  },
  {
    when: /\b(financial statements?|financial reporting|internal controls?)\b/i,
    unless: 'audit_rights',
    flag: 'SOX: financial reporting is in scope but no audit rights are granted',
    weight: 5,
  },
  {
    when: /\bsubcontract\w*\b/i,
    unless: 'confidentiality',
    flag: 'Subcontracting is allowed without confidentiality obligations flowing down',
    weight: 4,
  },
];

export interface DraftFacts {
  party: string;
  counterparty: string;
  purpose: string;
  term: string;
  law: string;
}

type Section = [heading: string, body: (f: DraftFacts) => string];

const confidentiality: Section = [
  'Confidentiality',
  (f) =>
    `Each party shall hold the Confidential Information of the other party in confidence and use it only for ${f.purpose}. Confidential Information means any non-public business, technical or financial information disclosed by one party to the other, and does not include information that is or becomes public through no fault of the receiving party.`,
];
const governingLaw: Section = [
  'Governing Law',
  (f) =>
    `This Agreement shall be governed by and construed in accordance with the laws of ${f.law}, without regard to its conflict of laws rules.`,
];
const liabilityCap: Section = [
  'Limitation of Liability',
  () =>
    `In no event shall either party's aggregate liability under this Agreement exceed the total fees paid or payable in the twelve (12) months preceding the claim, and neither party shall be liable for indirect or consequential damages.`,
];
const indemnity: Section = [
  'Indemnification',
  (f) =>
    `${f.counterparty} shall indemnify and hold harmless ${f.party} against third-party claims arising from its breach of this Agreement or its negligence.`,
];
const termination: Section = [
  'Termination',
  () =>
    `Either party may terminate this Agreement upon thirty (30) days written notice, or immediately upon written notice if the other party materially breaches this Agreement and fails to cure the breach within fifteen (15) days.`,
];
const term: Section = [
  'Term',
  (f) =>
    `This Agreement shall remain in effect for a period of ${f.term} from the Effective Date, after which it expires unless the parties renew it in writing.`,
];
const ipOwnership: Section = [
  'Intellectual Property',
  (f) =>
    `All work product and deliverables created under this Agreement shall be owned by ${f.party}, and ${f.counterparty} hereby assigns to ${f.party} all right, title and interest in them.`,
];
const insurance: Section = [
  'Insurance',
  (f) =>
    `${f.counterparty} shall maintain general liability and professional liability insurance coverage appropriate to its obligations throughout the term.`,
];
const assignment: Section = [
  'Assignment',
  () => `Neither party may assign this Agreement without the prior written consent of the other party.`,
];

const LIBRARY: Record<ContractType, { title: string; purpose: string; sections: Section[] }> = {
  nda: {
    title: 'Mutual Non-Disclosure Agreement',
    purpose: 'evaluating a possible business relationship between the parties',
    sections: [
      ['Purpose', (f) => `The parties wish to exchange information for the purpose of ${f.purpose}.`],
      confidentiality,
      [
        'Return of Information',
        () =>
          `On request, or when this Agreement ends, the receiving party shall return or destroy the Confidential Information of the disclosing party.`,
      ],
      term,
      termination,
      assignment,
      governingLaw,
    ],
  },
  service_agreement: {
    title: 'Services Agreement',
    purpose: 'the provision of the services described in this Agreement',
    sections: [
      [
        'Services',
        (f) => `${f.counterparty} shall provide to ${f.party} services for ${f.purpose}, as described in one or more statements of work.`,
      ],
      ['Warranty', (f) => `${f.counterparty} warrants that it will perform the services in a professional and workmanlike manner.`],
      term,
      termination,
      confidentiality,
      ipOwnership,
      indemnity,
      liabilityCap,
      insurance,
      assignment,
      governingLaw,
    ],
  },
  consulting: {
    title: 'Consulting Agreement',
    purpose: 'the consulting engagement described in this Agreement',
    sections: [
      [
        'Engagement',
        (f) => `${f.party} engages ${f.counterparty} as an independent contractor to provide consulting services for ${f.purpose}.`,
      ],
      [
        'Fees',
        (f) =>
          `${f.party} shall pay the fees set out in the applicable statement of work within thirty (30) days of a valid invoice from ${f.counterparty}.`,
      ],
      term,
      termination,
      confidentiality,
      ipOwnership,
      indemnity,
      liabilityCap,
      governingLaw,
    ],
  },
  employment: {
    title: 'Employment Agreement',
    purpose: 'the role described in this Agreement',
    sections: [
      [
        'Position',
        (f) =>
          `${f.party} employs ${f.counterparty} for ${f.purpose}, and ${f.counterparty} accepts the employment on the terms of this Agreement.`,
      ],
      [
        'Compensation',
        (f) => `${f.party} shall pay ${f.counterparty} the salary and benefits set out in Schedule A, subject to applicable withholding.`,
      ],
      term,
      termination,
      confidentiality,
      ipOwnership,
      governingLaw,
    ],
  },
  lease: {
    title: 'Lease Agreement',
    purpose: 'the use of the premises described in this Agreement',
    sections: [
      ['Premises', (f) => `${f.party} (the Landlord) leases to ${f.counterparty} (the Tenant) the premises for ${f.purpose}.`],
      ['Rent', (f) => `${f.counterparty} shall pay rent monthly in advance as set out in Schedule A.`],
      term,
      termination,
      insurance,
      indemnity,
      liabilityCap,
      governingLaw,
    ],
  },
};

export function draftFromLibrary(type: ContractType, title: string, facts: Omit<DraftFacts, 'purpose'> & { purpose?: string }): string {
  const entry = LIBRARY[type];
  const f: DraftFacts = { ...facts, purpose: facts.purpose || entry.purpose };
  const heading = title || entry.title;
  const preamble = `This ${entry.title} (the "Agreement") is entered into by and between ${f.party} and ${f.counterparty} (each a "party").`;
  const body = entry.sections.map(([h, text], i) => `${i + 1}. ${h}\n${text(f)}`);
  return [
    heading.toUpperCase(),
    preamble,
    ...body,
    `Signed for ${f.party}: ____________________\nSigned for ${f.counterparty}: ____________________`,
  ].join('\n\n');
}
