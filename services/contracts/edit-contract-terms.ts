/**
 * A member's work on a contract's key terms, by the contract's id (of the caller's
 * organization only): extract them again, read them, confirm or correct them. Each change
 * re-plans the contract's renewal reminders.
 */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { notFound } from '../../platform/errors';
import { contractTerms, correctContractTerms, extractContractTerms, type TermsView } from './contract-terms';
import { scheduleRenewalReminders } from './renewal-deadlines';
import { KEY_TERMS, NORMALIZED } from './key-terms.shared';
import { getContract } from './get-contract';

const correction = (k: (typeof KEY_TERMS)[number]) =>
  z
    .object({
      value: z.string().trim().min(1).max(2000).optional(),
      normalized: NORMALIZED[k].nullable().optional(),
      confirmed: z.boolean().optional(),
    })
    .nullable()
    .optional();

export const updateTermsBody = z.object({
  // An unknown key is refused, not ignored: a client that misspells one would believe it saved.
  terms: z.strictObject(Object.fromEntries(KEY_TERMS.map((k) => [k, correction(k)])), {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key term ${issue.keys.map((k) => `"${k}"`).join(', ')}; the keys are ${KEY_TERMS.join(', ')}`
        : undefined,
  }),
});

export async function extractTermsOfContract(s: Engines, p: Principal, contractId: unknown): Promise<TermsView> {
  const contract = await getContract(p, contractId);
  const view = await extractContractTerms(s, p.organizationId, contract.id);
  if (!view) throw notFound('Contract');
  await scheduleRenewalReminders(s, p.organizationId, contract.id);
  return view;
}

export async function getContractTerms(p: Principal, contractId: unknown): Promise<TermsView> {
  return contractTerms(await getContract(p, contractId));
}

export async function updateContractTerms(
  s: Engines,
  p: Principal,
  contractId: unknown,
  body: z.infer<typeof updateTermsBody>,
): Promise<TermsView> {
  const contract = await getContract(p, contractId);
  const view = await correctContractTerms(s, contract, body.terms);
  await scheduleRenewalReminders(s, p.organizationId, contract.id);
  return view;
}
