import type { Request } from 'express';
import type { SignerClient } from '../../../services/signatures/record-signer-act';

/** The signer's address (as `trust proxy` resolves it) and user agent, for the audit trail. */
export const signerClient = (req: Request): SignerClient => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });

/**
 * A request no person made to read the page: a HEAD, or a browser's prefetch or prerender
 * (`Sec-Purpose: prefetch` or `prefetch;prerender`, the older `Purpose: prefetch`, Firefox's
 * `X-Moz: prefetch`). It is answered, but does not mark the signer as having viewed.
 */
export const isPrefetch = (req: Request): boolean =>
  req.method === 'HEAD' ||
  [req.get('sec-purpose'), req.get('purpose'), req.get('x-moz')].some((v) => v !== undefined && /(^|[\s;,])prefetch\b/i.test(v));
