/** Shared by the CRM and storage connectors: one call with a zod-checked answer, and per-file writes. */
import { z } from 'zod';
import type { IntegrationType } from '../../models/integration';
import type { ConnectorContext, UpsertResult } from './connector';
import { vendorJson } from './context';

/** Calls the vendor; a non-2xx answer (with its Retry-After) or an undocumented body throws VendorError. */
export async function callVendor<T extends z.ZodType>(
  vendor: IntegrationType,
  ctx: ConnectorContext,
  url: string,
  init: RequestInit,
  schema: T,
): Promise<z.infer<T>> {
  return vendorJson(vendor, await ctx.fetch(url, init), schema);
}

export const bearer = (token: string | undefined) => ({ authorization: `Bearer ${token ?? ''}` });

/**
 * An OAuth access token as a connect body gives it. It travels in an Authorization header,
 * which carries only visible ASCII: anything else would be accepted here and then fail in
 * the worker on every call, so it is refused at the edge. (Salesforce tokens contain "!".)
 */
export const accessToken = z
  .string()
  .min(1)
  .max(8192)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters without spaces (an OAuth access token)');

/** YYYY-MM-DD of an ISO timestamp, or null. */
export const isoDay = (iso: string | null) => (iso ? iso.slice(0, 10) : null);

/**
 * A storage connector writes one file per call; when a later call of a batch fails, the
 * files already written travel with the error so their ids are kept and a retry updates
 * them instead of creating second copies.
 */
export class PartialUpsertError extends Error {
  constructor(
    readonly done: UpsertResult,
    readonly failure: unknown,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

/**
 * Runs `write` per key in order, collecting vendor ids; a failure carries what was done.
 * A write of several calls reports its record through `created` as soon as it exists, so a
 * failure after that still keeps the id and the retry updates that record.
 */
export async function writeEach(
  keys: string[],
  write: (key: string, created: (vendorId: string) => void) => Promise<string>,
): Promise<UpsertResult> {
  const done: UpsertResult = {};
  for (const key of keys) {
    try {
      done[key] = await write(key, (vendorId) => {
        done[key] = vendorId;
      });
    } catch (err) {
      throw new PartialUpsertError(done, err);
    }
  }
  return done;
}
