/** The AI on a contract: drafting its text, and analyzing its risks (the score is stored on it). */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { badRequest } from '../../platform/errors';
import { requiredText } from '../../platform/input';
import type { ContractAnalysis, DraftRequest } from '../../platform/ai/port';
import type { ContractDoc } from '../../models/contract';
import { emitContractEvent } from './contract-events';
import { analyzeByClauses, draftByLibrary } from '../clauses/clause-rules';
import { riskLevel } from '../clauses/risk-level';
import { refuseChangeWhileSigning } from './pending-signature';

/** A contract's text drafted by the provider's model, else from the clause library. */
export async function draftText(s: Engines, req: DraftRequest): Promise<string> {
  return (await s.ai.draftContract(req)) ?? draftByLibrary(req);
}

/** A contract's risk analysed by the provider's model, else by its clauses. */
export async function analyzeText(
  s: Pick<Engines, 'ai'>,
  input: { type: string; title: string; content: string },
): Promise<ContractAnalysis> {
  const byModel = await s.ai.analyzeContract(input);
  if (!byModel) return analyzeByClauses(input);
  // One rule maps scores to levels everywhere, whatever the model answered.
  return { ...byModel, analysis: { ...byModel.analysis, risk_level: riskLevel(byModel.risk_score) } };
}
import { authorOf, recordContractVersion } from './contract-versions';
import { makeSearchable } from '../search/reflect-contracts';
import { getContract } from './get-contract';

export const draftBody = z.object({
  prompt: z.string().max(4000, 'must be at most 4000 characters').optional(),
  party_name: requiredText(300).optional(),
});

export async function draftContractText(
  s: Engines,
  p: Principal,
  contractId: unknown,
  body: z.infer<typeof draftBody>,
): Promise<ContractDoc> {
  const contract = await getContract(p, contractId);
  const partyName = body.party_name ?? contract.party_name;
  if (!partyName) throw badRequest('party_name: required, since the contract has none');
  // A new text under a pending signature request is refused, as an edit of it is.
  await refuseChangeWhileSigning(contract, ['content']);
  contract.content = await draftText(s, {
    type: contract.type,
    title: contract.title,
    partyName,
    counterparty: contract.counterparty,
    prompt: body.prompt,
  });
  contract.party_name = partyName;
  await contract.save();
  await recordContractVersion(contract, authorOf(p), { note: 'Drafted with AI' });
  const event = await emitContractEvent(s, p, 'contract.updated', contract, `Contract "${contract.title}" drafted with AI`, {
    changed_fields: ['content', 'party_name'],
  });
  await makeSearchable(s, event);
  return contract;
}

export async function analyzeContract(s: Engines, p: Principal, contractId: unknown) {
  const contract = await getContract(p, contractId);
  if (!contract.content.trim()) throw badRequest('content: the contract has no text to analyze; add or draft it first');
  const result = await analyzeText(s, { type: contract.type, title: contract.title, content: contract.content });
  contract.set({ risk_score: result.risk_score, analysis: result.analysis, analyzed_at: new Date() });
  await contract.save();
  const event = await emitContractEvent(
    s,
    p,
    'contract.analyzed',
    contract,
    `Contract "${contract.title}" analyzed: risk ${result.risk_score}/100`,
    { risk_score: result.risk_score, risk_level: result.analysis.risk_level },
  );
  await makeSearchable(s, event);
  return result;
}
