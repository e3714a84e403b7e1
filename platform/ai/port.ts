/**
 * The AI port: everything the service asks of a model, behind one interface with two
 * adapters (local: deterministic and offline, the default; gemini: when GEMINI_API_KEY is
 * set). Result shapes are zod schemas, so a model's JSON is validated like user input.
 */
import { z } from 'zod';

export const EMBEDDING_DIM = 3072;

export const ContractAnalysis = z.object({
  risk_score: z.number().int().min(0).max(100),
  analysis: z.object({
    risk_level: z.enum(['low', 'medium', 'high', 'critical']),
    key_risks: z.array(z.object({ clause: z.string(), risk: z.string(), recommendation: z.string() })),
    missing_clauses: z.array(z.string()),
    compliance_flags: z.array(z.string()),
  }),
});
export type ContractAnalysis = z.infer<typeof ContractAnalysis>;

export const VendorAssessment = z.object({
  risk_score: z.number().int().min(0).max(100),
  risk_level: z.enum(['low', 'medium', 'high', 'critical']),
  assessment: z.object({
    financial_stability: z.string(),
    data_handling: z.string(),
    contract_coverage: z.string(),
    recommendations: z.array(z.string()),
  }),
});
export type VendorAssessment = z.infer<typeof VendorAssessment>;

export const DocumentAnalysis = z.object({
  summary: z.string(),
  key_terms: z.array(z.string()),
  risks: z.array(z.string()),
  document_type: z.string(),
  page_count: z.number().int().min(0),
});
export type DocumentAnalysis = z.infer<typeof DocumentAnalysis>;

export interface DraftRequest {
  /** The contract's type (models/contract.ts CONTRACT_TYPES). */
  type: string;
  title: string;
  partyName: string;
  counterparty: string;
  prompt?: string;
  /** e.g. "2 years" */
  term?: string;
  governingLaw?: string;
}

export interface VendorFacts {
  name: string;
  category?: string | null;
  website?: string | null;
  notes?: string | null;
  /** Texts of the contracts linked to the vendor. */
  contracts: Array<{ title: string; type: string; status: string; content: string }>;
}

/** A retrieved passage the answer may cite. */
export interface ContextPassage {
  title: string;
  page: number;
  section: string;
  text: string;
  relevance: number;
}

/** Vectors the vector store already holds, keyed by the exact text each was embedded from, and their model. */
export interface StoredVectors {
  model: string;
  byText: ReadonlyMap<string, readonly number[]>;
}

export interface AiPort {
  readonly provider: 'local' | 'gemini';
  readonly models: { primary: string; mini: string; premium: string; fallback: string; embedding: string };
  /*
   * Drafting and analysis by a generative model; null where the provider has none (the local
   * provider): the features' own rules answer then (services/clauses/clause-rules.ts and its kin).
   */
  draftContract(req: DraftRequest): Promise<string | null>;
  analyzeContract(input: { type: string; title: string; content: string }): Promise<ContractAnalysis | null>;
  assessVendor(input: VendorFacts): Promise<VendorAssessment | null>;
  analyzeDocument(input: { filename: string; text: string; pageCount: number }): Promise<DocumentAnalysis | null>;
  /** Streams the answer text in pieces; stops early when `signal` aborts. */
  generateAnswer(input: {
    question: string;
    context: ContextPassage[];
    history: Array<{ role: 'user' | 'assistant'; content: string }>;
    signal?: AbortSignal;
    /** The stored vectors of the first `passages` passages' sentences, for a provider that would embed them. */
    storedVectors?: (passages: number) => Promise<StoredVectors>;
  }): AsyncIterable<string>;
  /**
   * Fields read out of a text as the schema shapes them, validated against it; null where the
   * provider has no model for it (the local provider: features keep their own rules then).
   */
  extractStructured<T>(input: { system: string; prompt: string; schema: z.ZodType<T> }): Promise<T | null>;
  /** L2-normalized vectors of EMBEDDING_DIM dimensions, one per text. */
  embed(texts: string[], kind: 'document' | 'query'): Promise<number[][]>;
}
