/**
 * The signing page's forms. A form's CSRF token is bound to the browser (its id) and to the
 * link (its hash), so a forged cross-site post fails and so does a token lifted from another
 * link's form (platform/security/csrf.ts). The token is checked first, then the form; a valid
 * form becomes the signer's act (./record-signer-act.ts).
 */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Config } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { sha256Hex } from '../../platform/security/crypto';
import { csrfToken, csrfValid } from '../../platform/security/csrf';
import { declineAsSigner, signAsSigner, type SignerClient } from './record-signer-act';

/** Text the signer types, with messages addressed to them. */
const typedText = (max: number, empty: string) =>
  z
    .string()
    .trim()
    .min(1, empty)
    .max(max, `Use at most ${max} characters`)
    .refine((v) => !v.includes('\0'), 'Remove the NUL character');

export const signForm = z.object({
  // An unticked box sends nothing.
  consent: z.preprocess((v) => v ?? '', z.literal('yes', 'Tick the box to agree to sign electronically')),
  signature_text: typedText(200, 'Type your full name to sign'),
});
export const declineForm = z.object({ reason: typedText(2000, 'Say briefly why you decline') });

/** The token for the forms of the link `token` in the browser `browserId`. */
export const signingFormToken = (config: Pick<Config, 'ENCRYPTION_KEY'>, browserId: string, token: string) =>
  csrfToken(config, browserId, sha256Hex(token));

/** The post as the page's form sent it, and whose browser sent it. */
export interface SigningFormPost {
  token: string;
  browserId: string | null;
  client: SignerClient;
  body: Record<string, unknown>;
}

/** Done (or closed meanwhile: the page then shows that state), forbidden (CSRF), or refused with what to correct, by form field. */
export type SigningFormOutcome = 'done' | 'forbidden' | { typed: Record<string, string>; errors: Record<string, string> };

async function submit<T>(
  config: Pick<Config, 'ENCRYPTION_KEY'>,
  post: SigningFormPost,
  form: { schema: z.ZodType<T>; typed: string; fallback: string },
  act: (data: T) => Promise<unknown>,
): Promise<SigningFormOutcome> {
  if (!csrfValid(config, post.browserId, sha256Hex(post.token), post.body.csrf)) return 'forbidden';
  const parsed = form.schema.safeParse(post.body);
  if (!parsed.success) {
    const typed = post.body[form.typed];
    return {
      typed: { [form.typed]: typeof typed === 'string' ? typed.slice(0, 2000) : '' },
      errors: Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? form.fallback), i.message])),
    };
  }
  try {
    await act(parsed.data);
  } catch (err) {
    // Closed or not yet their turn meanwhile: the page shows that state.
    if (!(err instanceof AppError) || ![404, 409, 410].includes(err.status)) throw err;
  }
  return 'done';
}

export const signOnPage = (s: Engines, post: SigningFormPost) =>
  submit(s.config, post, { schema: signForm, typed: 'signature_text', fallback: 'consent' }, (b) =>
    signAsSigner(s, post.token, post.client, b.signature_text),
  );

export const declineOnPage = (s: Engines, post: SigningFormPost) =>
  submit(s.config, post, { schema: declineForm, typed: 'reason', fallback: 'reason' }, (b) =>
    declineAsSigner(s, post.token, post.client, b.reason),
  );
