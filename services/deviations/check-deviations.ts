/**
 * GET /contracts/:id/deviations: the contract's text of record (the attached contract
 * document's pages, else its content), the organization's clause library, and the key terms
 * stored for the contract, judged by deviation-rules.ts with the process's embedding model.
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { getContract } from '../contracts/get-contract';
import { Clause } from '../../models/clause';
import { ContractTerms } from '../../models/contract-terms';
import { textOfRecord } from '../contracts/contract-terms';
import { libraryText, type Position } from '../clause-library/clause-positions';
import { candidatesOf, judgeDeviations, paragraphsOf, type DeviationReport, type LibraryClause, type StatedTerms } from './deviation-rules';

export async function checkDeviations(
  s: Engines,
  p: Principal,
  contractId: unknown,
): Promise<DeviationReport & { contract_id: string; model: string; source: string }> {
  const contract = await getContract(p, contractId);
  const [{ pages, source }, clauses, stored] = await Promise.all([
    textOfRecord(s, contract),
    Clause.find({ organization_id: contract.organization_id }).sort({ type: 1 }).lean(),
    ContractTerms.findOne({ organization_id: contract.organization_id, contract_id: contract._id }, { terms: 1 }).lean(),
  ]);
  const library: LibraryClause[] = clauses.map((c) => ({
    type: c.type,
    title: c.title,
    version: c.version,
    key_term: c.key_term ?? null,
    positions: (c.positions as Position[]).map((p) => ({ text: p.text, term_value: p.term_value ?? null })),
  }));
  const candidates = candidatesOf(paragraphsOf(pages));
  const positionTexts = library.flatMap((c) => c.positions.map((p) => libraryText(p)));
  const vectors =
    candidates.length && positionTexts.length ? await s.ai.embed([...candidates.map((c) => c.text), ...positionTexts], 'document') : [];
  const candidateVectors = vectors.slice(0, candidates.length);
  let at = candidates.length;
  const positionVectors = library.map((c) => c.positions.map(() => vectors[at++]!));
  const report = judgeDeviations({ candidates, candidateVectors, library, positionVectors, terms: (stored?.terms ?? {}) as StatedTerms });
  return { contract_id: contract.id, model: s.ai.models.embedding, source, ...report };
}
