/**
 * Query expansion from the clause taxonomy: a question in a user's words ("can we walk away
 * without a reason?") gains the vocabulary contracts use for that clause ("termination for any
 * or no reason"). General legal usage, never text of a particular contract. The keyword
 * ranking gets the words; the embedded question gets the clause names, which moves a
 * paraphrase toward the clause without replacing what was asked.
 */

interface Topic {
  /** Words in a question that point at the clause. */
  asks: RegExp;
  /** The clause's name, as headings say it. */
  clause: string;
  /** Words the clause's text uses. */
  vocabulary: string;
}

const TOPICS: readonly Topic[] = [
  {
    asks: /\b(disputes?|sue[sd]?|lawsuits?|litigat\w*|courts?|heard|venue|jurisdiction)\b/i,
    clause: 'Governing Law and Chosen Courts',
    vocabulary: 'governing law chosen courts jurisdiction legal suit action proceeding',
  },
  {
    asks: /\b(walk away|get out|exit|cancel\w*|terminat\w*|quit|end (the|this|our) (deal|contract|agreement|partnership|relationship|engagement))\b/i,
    clause: 'Termination',
    vocabulary: 'terminate termination notice',
  },
  {
    asks: /\b(without (a |any |giving a )?reason|for convenience|any reason|at will)\b/i,
    clause: 'Termination for convenience',
    vocabulary: 'terminate for any or no reason notice',
  },
  {
    asks: /\b(renew\w*|rolls? over|another (year|term)|extend\w*|prolong\w*|auto-?renew\w*)\b/i,
    clause: 'Renewal',
    vocabulary: 'renew renewal non-renewal notice extend term subscription period',
  },
  { asks: /\b(money back|refund\w*|reimburs\w*)\b/i, clause: 'Refunds', vocabulary: 'refund non-refundable prepaid fees reimburse' },
  {
    asks: /\b(pay|paid|payment|invoices?|bill(s|ed|ing)?|price|cost|fees?)\b/i,
    clause: 'Payment and Fees',
    vocabulary: 'fees payment invoice pay',
  },
  {
    asks: /\b(liab\w*|owe|damages|lost profits|cap)\b/i,
    clause: 'Limitation of Liability',
    vocabulary: 'liability cap damages waiver lost profits',
  },
  {
    asks: /\b(defend\w*|third[- ]part(y|ies) (claims?|sues?|lawsuits?)|sues? (us|them)|indemn\w*)\b/i,
    clause: 'Indemnification',
    vocabulary: 'indemnify defend hold harmless covered claims',
  },
  {
    asks: /\b(secret\w*|confidential\w*|non-?disclosure)\b/i,
    clause: 'Confidentiality',
    vocabulary: 'confidential information recipient discloser',
  },
  { asks: /\binsur\w*/i, clause: 'Insurance', vocabulary: 'insurance policies coverage limits' },
  {
    asks: /\b(subcontract\w*|someone else|other compan(y|ies)|outsourc\w*|sub-?processors?|third parties)\b/i,
    clause: 'Subcontractors',
    vocabulary: 'subcontractors subprocessors perform services',
  },
  {
    asks: /\b(own(s|ed|er|ership)?|work product|intellectual property|ip)\b/i,
    clause: 'Ownership and Intellectual Property',
    vocabulary: 'right title and interest owns assigns deliverables',
  },
  {
    asks: /\b(press|publicity|public(ly)?|announce\w*|marketing|logo|brand)\b/i,
    clause: 'Publicity',
    vocabulary: 'publicly announce publicity name and logo marketing',
  },
  {
    asks: /\b(transfer(red)? the (contract|agreement)|assign\w*|acquired|bought|merger|takeover)\b/i,
    clause: 'Assignment',
    vocabulary: 'assign assignment merger change of control',
  },
  { asks: /\b(anonymi[sz]\w*|de-?identif\w*)\b/i, clause: 'De-Identification', vocabulary: 'de-identify' },
  {
    asks: /\b(abroad|overseas|outside (the )?(us|u\.s\.|united states|eu|europe|eea)|out of (europe|the eea|the us)|offshor\w*|international)\b/i,
    clause: 'Offshoring and Restricted Transfers',
    vocabulary: 'transfer outside offshoring',
  },
  {
    asks: /\b(breach(es)?|hack\w*|incident|leak\w*)\b/i,
    clause: 'Security Incident and Breach Notification',
    vocabulary: 'security incident breach notify notification',
  },
  { asks: /\b(audit\w*|inspect\w*|records?|regulators?)\b/i, clause: 'Audit Rights', vocabulary: 'audit books and records inspections' },
  {
    asks: /\b(warrant\w*|guarantee\w*|promised|as promised|work properly|broken|defect\w*)\b/i,
    clause: 'Warranty',
    vocabulary: 'warranty warrants conform remedy',
  },
  { asks: /\b(patch\w*|updates?|new versions?|upgrades?)\b/i, clause: 'Updates', vocabulary: 'updates install' },
  { asks: /\b(open[- ]source|free and community)\b/i, clause: 'Open Source Software', vocabulary: 'open source software license notices' },
  {
    asks: /\b(ai|artificial intelligence|machine learning|train(ing)?)\b/i,
    clause: 'Machine Learning',
    vocabulary: 'machine learning artificial intelligence models usage data',
  },
  { asks: /\b(tax(es)?|vat|gst)\b/i, clause: 'Taxes', vocabulary: 'taxes duties levies' },
  { asks: /\b(trial|pilot)\b/i, clause: 'Pilot', vocabulary: 'pilot period trial evaluation' },
  { asks: /\b(scope|change orders?|amend\w*|modif\w*)\b/i, clause: 'Change Orders', vocabulary: 'change order amend modification' },
  { asks: /\b(health|patients?|medical|hipaa)\b/i, clause: 'Protected Health Information', vocabulary: 'PHI protected health information' },
  { asks: /\b(personal data|personal information|privacy|gdpr)\b/i, clause: 'Data Protection', vocabulary: 'personal data processing' },
  {
    asks: /\b(suspend\w*|cut (us )?off|unpaid|overdue|late)\b/i,
    clause: 'Suspension',
    vocabulary: 'suspend suspension outstanding balance',
  },
];

export interface ExpandedQuery {
  /** The question and the clause vocabulary, for the keyword ranking. */
  keywords: string;
  /** The question followed by the clause names, for the embedding. */
  embedding: string;
}

export function expandQuery(question: string): ExpandedQuery {
  const topics = TOPICS.filter((t) => t.asks.test(question));
  if (!topics.length) return { keywords: question, embedding: question };
  return {
    keywords: [question, ...topics.map((t) => t.vocabulary)].join(' '),
    embedding: `${question} (${topics.map((t) => t.clause).join('; ')})`,
  };
}
