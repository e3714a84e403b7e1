/** TOTP (RFC 6238, 30 s steps, 6 digits) via otplib, with one step of clock drift allowed. */
import { generate, generateSecret, generateURI, verify } from 'otplib';

export const newTotpSecret = () => generateSecret();

export const otpauthUrl = (issuer: string, account: string, secret: string) => generateURI({ issuer, label: account, secret });

/**
 * The matched time step, or null; steps at or before `afterStep` are refused (no code is used twice).
 * Never throws: otplib throws when `afterStep` lies beyond this server's window (a step
 * recorded by an instance whose clock runs ahead) and on a malformed secret; either way
 * the code simply does not pass.
 */
export async function checkTotp(secret: string, code: string, afterStep: number | null): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  try {
    const result = await verify({ secret, token: code, epochTolerance: 30, ...(afterStep === null ? {} : { afterTimeStep: afterStep }) });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  } catch {
    return null;
  }
}

/** The current code (for tests and tooling; the service itself only verifies). */
export const totpNow = (secret: string, epochSeconds?: number) =>
  generate({ secret, ...(epochSeconds === undefined ? {} : { epoch: epochSeconds }) });
